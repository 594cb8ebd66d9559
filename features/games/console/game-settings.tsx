import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { api, enc, get } from '../../../console/src/api'
import {
  ErrorNote,
  Loading,
  Notice,
  SaveForm,
  SelectField,
  TextArea,
  TextField,
  Title,
  useAction,
  useGame,
  useLoad,
  WriteButton,
} from '../../../console/src/ui'
import type { GameSettings } from './shapes'

type Name = Exclude<keyof GameSettings, 'overridden'>

/** The six settings a game may set over the environment's, in the page's order, with their labels. */
const LABELS: Record<Name, string> = {
  authMode: 'Sign-in mode',
  rateLimitPerSecond: 'Rate limit per second',
  appleAudiences: 'Apple audiences',
  googleAudiences: 'Google audiences',
  emailFrom: 'E-mail sender',
  corsOrigins: 'CORS origins',
}
const NAMES = Object.keys(LABELS) as Name[]
const LISTS = new Set<Name>(['appleAudiences', 'googleAudiences', 'corsOrigins'])

/** The form's text of a setting: lists one item a line. */
const textOf = (settings: GameSettings, name: Name) => {
  const value = settings[name]
  return Array.isArray(value) ? value.join('\n') : String(value)
}

/** The value to send for a field's text. */
function valueOf(name: Name, text: string): unknown {
  if (LISTS.has(name))
    return text
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
  if (name === 'rateLimitPerSecond') return text.trim() === '' ? text : Number(text)
  return text.trim()
}

function Setting({
  name,
  overridden,
  onReset,
  children,
}: {
  name: Name
  overridden: boolean
  onReset: () => void
  children: ComponentChildren
}) {
  return (
    <div class="field wide" data-setting={name}>
      {children}
      <small>
        {overridden ? (
          <>
            <span class="badge good">set for this game</span>{' '}
            <WriteButton write="operators" aria-label={`Reset ${LABELS[name]}`} onClick={onReset}>
              Reset to the environment's value
            </WriteButton>
          </>
        ) : (
          <span class="badge">the environment's value</span>
        )}
      </small>
    </div>
  )
}

function SettingsForm({
  path,
  settings,
  action,
  onSaved,
}: {
  path: string
  settings: GameSettings
  action: ReturnType<typeof useAction>
  onSaved: () => void
}) {
  const [texts, setTexts] = useState<Record<Name, string>>(
    () => Object.fromEntries(NAMES.map((n) => [n, textOf(settings, n)])) as Record<Name, string>,
  )
  const changed = NAMES.filter((n) => texts[n] !== textOf(settings, n))
  const set = (name: Name) => (text: string) => setTexts({ ...texts, [name]: text })
  const patch = (body: Record<string, unknown>, success: string) =>
    void action.run(() => api('PATCH', path, body), success).then((ok) => ok && onSaved())
  const field = (name: Name) => {
    if (name === 'authMode')
      return (
        <SelectField
          label={LABELS[name]}
          value={texts[name] as GameSettings['authMode']}
          options={[
            ['compat', 'compat: a userId alone is believed (older SDKs)'],
            ['strict', "strict: user-scoped calls need the player's session"],
          ]}
          onValue={set(name)}
        />
      )
    if (LISTS.has(name))
      return <TextArea label={`${LABELS[name]} (one a line)`} value={texts[name]} onValue={set(name)} rows={3} />
    return (
      <TextField
        label={LABELS[name]}
        type={name === 'rateLimitPerSecond' ? 'number' : name === 'emailFrom' ? 'email' : 'text'}
        value={texts[name]}
        onValue={set(name)}
      />
    )
  }
  return (
    <>
      <SaveForm
        label="Game settings"
        area="operators"
        disabled={changed.length === 0}
        busy={action.busy}
        onSave={() => patch(Object.fromEntries(changed.map((n) => [n, valueOf(n, texts[n])])), 'Saved')}
      >
        {NAMES.map((name) => (
          <Setting
            key={name}
            name={name}
            overridden={settings.overridden.includes(name)}
            onReset={() => patch({ [name]: null }, `${LABELS[name]}: the environment's value again`)}
          >
            {field(name)}
          </Setting>
        ))}
      </SaveForm>
    </>
  )
}

export default function GameSettingsPage() {
  const { game, name } = useGame()
  const path = `/games/${enc(game)}/settings`
  const loaded = useLoad(() => get<GameSettings>(path), [path])
  // Kept here: the form is made anew from each answer, the outcome of its last save stays.
  const action = useAction()
  return (
    <>
      <Title>Game settings</Title>
      <p class="muted">
        The settings of <strong>{name}</strong> that may differ from the environment's. A setting not set for this game
        follows the environment (<code>.env</code>); one set here applies to this game only.
      </p>
      <Loading loaded={loaded} />
      {loaded.data && (
        <SettingsForm
          key={JSON.stringify(loaded.data)}
          path={path}
          settings={loaded.data}
          action={action}
          onSaved={loaded.reload}
        />
      )}
      <ErrorNote error={action.error} />
      <Notice text={action.notice} />
    </>
  )
}
