// The scaffolding every list page shares: a title with its "New …" button, the form it opens (also
// for editing a row), filters, one cursor-paged table, and the row actions. Pages say only what is
// theirs: the path, the columns, the filters and the form. Kept out of ui/ so that it loads with the
// first page that needs it, not with the sign-in form.
import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { api, type Area, type Query } from './api'
import {
  ConfirmButton,
  ErrorNote,
  Notice,
  PagedTable,
  SaveForm,
  Title,
  useAction,
  usePaged,
  WriteButton,
  type Column,
} from './ui'

/** What a list page's columns may do: reload the list, open the form on a row, run a row's action. */
export interface ListControls<T> {
  reload: () => void
  edit: (item: T) => void
  /** Runs a row's write (a delete, a revoke): its error shows above the table, the list reloads after. */
  act: (write: () => Promise<unknown>, success?: string) => void
}

export interface FormProps<T> {
  /** The row being edited, or undefined for a new one. */
  item?: T
  /** Closes the form and reloads the list (after a save). */
  done: () => void
}

export function ListPage<T>({
  title,
  path,
  query = {},
  limit,
  columns,
  caption = title,
  empty,
  filters,
  create,
  keyOf,
  area = 'game',
  children,
}: {
  title: string
  path: string
  query?: Query
  limit?: number
  columns: (list: ListControls<T>) => Array<Column<T>>
  caption?: string
  empty?: string
  filters?: ComponentChildren
  /** The "New …" button and the form it opens; the same form edits a row (see ListControls.edit). */
  create?: { label: string; form: (props: FormProps<T>) => ComponentChildren }
  /** A row's identity, so that editing another row starts a fresh form. */
  keyOf?: (item: T) => string
  area?: Area
  children?: ComponentChildren
}) {
  const paged = usePaged<T>(path, query, limit)
  const [editing, setEditing] = useState<{ item?: T } | null>(null)
  const action = useAction()
  const controls: ListControls<T> = {
    reload: paged.reload,
    edit: (item) => setEditing({ item }),
    act: (write, success) => void action.run(write, success).then(paged.reload),
  }
  const done = () => {
    setEditing(null)
    paged.reload()
  }
  return (
    <>
      <Title
        actions={
          create && (
            <WriteButton
              write={area === 'operators' ? 'operators' : true}
              onClick={() => setEditing(editing && !editing.item ? null : {})}
            >
              {create.label}
            </WriteButton>
          )
        }
      >
        {title}
      </Title>
      {children}
      {create && editing && (
        <div key={editing.item && keyOf ? keyOf(editing.item) : 'new'}>{create.form({ item: editing.item, done })}</div>
      )}
      {filters && <div class="filters">{filters}</div>}
      <ErrorNote error={action.error} />
      <Notice text={action.notice} />
      <PagedTable paged={paged} caption={caption} empty={empty} columns={columns(controls)} />
    </>
  )
}

/** A row's "Edit" and its confirmed "Delete …" (named after the row, for screen readers). */
export function RowActions({
  name,
  onEdit,
  onDelete,
  editLabel = 'Edit',
  deleteVerb = 'Delete',
  area = 'game',
  children,
}: {
  name: string
  onEdit?: () => void
  onDelete?: () => void
  editLabel?: string
  deleteVerb?: string
  area?: Area
  children?: ComponentChildren
}) {
  return (
    <span class="actions">
      {onEdit && (
        <WriteButton
          write={area === 'operators' ? 'operators' : true}
          onClick={onEdit}
          aria-label={`${editLabel} ${name}`}
        >
          {editLabel}
        </WriteButton>
      )}
      {children}
      {onDelete && (
        <ConfirmButton
          label={`${deleteVerb} ${name}`}
          confirmLabel={`Confirm ${deleteVerb.toLowerCase()}`}
          area={area}
          onConfirm={onDelete}
        />
      )}
    </span>
  )
}

/** A delete of `path`, as a row action. */
export const deleteRow = (path: string) => () => api('DELETE', path)

/**
 * A "Save" form wired to its own action: busy while saving, the server's error (or `success`) under it,
 * and `onDone` told once the save went through.
 */
export function ActionForm({
  label,
  submit,
  save,
  onDone,
  success = 'Saved',
  area,
  disabled,
  children,
}: {
  label: string
  /** The submit button's text, when "Save" would not say what it does. */
  submit?: string
  save: () => Promise<unknown>
  onDone?: () => void
  success?: string
  area?: Area
  disabled?: boolean
  children: ComponentChildren
}) {
  const action = useAction()
  return (
    <>
      <SaveForm
        label={label}
        submit={submit}
        area={area}
        disabled={disabled}
        busy={action.busy}
        onSave={() => action.run(save, success).then((ok) => ok && onDone?.())}
      >
        {children}
      </SaveForm>
      <ErrorNote error={action.error} />
      <Notice text={action.notice} />
    </>
  )
}
