// The console's building blocks, by kind: one import for the pages.
export { ConfirmButton, Notice, useAction, WriteButton } from './actions'
export { CheckField, intOrNull, SaveForm, SelectField, TextArea, TextField } from './forms'
export { Json, Title } from './layout'
export { ErrorNote, errorText, Loading, useLoad, type Loaded } from './load'
export { OperatorContext, ROLE_HINT, useCanWrite, useOperator } from './operator'
export { Pager, PagedTable, Table, usePaged, type Column } from './tables'
export { Time, utc } from './time'
