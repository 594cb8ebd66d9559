import { useState } from 'preact/hooks'
import { api, enc } from '../../../console/src/api'
import { ActionForm, ListPage, RowActions, type FormProps } from '../../../console/src/list'
import type { Webhook, WebhookEventType, WebhookFormat } from '../../../console/src/types'
import { CheckField, SelectField, TextField, Time, WriteButton } from '../../../console/src/ui'
import { Cell, Health, hookName, MaskedUrl } from './webhook-health'

/** Every event type an endpoint can subscribe to, with what it means (a Record: none can be left out). */
export const EVENT_LABELS: Record<WebhookEventType, string> = {
  'leaderboard.new_leader': 'A board has a new leader',
  'crash.group_created': 'A new crash group',
  'crash.group_regressed': 'A resolved crash is back',
  'feedback.submitted': 'A player filed feedback',
  'run.flagged': 'A validated run was flagged',
  'gift_code.exhausted': 'A gift code is used up',
  'player.banned': 'A player was banned',
  'email.failed': 'An e-mail failed for good',
  'webhook.test': 'Test events',
}
const EVENTS = Object.keys(EVENT_LABELS) as WebhookEventType[]
const FORMATS: ReadonlyArray<readonly [WebhookFormat, string]> = [
  ['standard', 'Standard Webhooks (signed JSON)'],
  ['discord', 'Discord'],
  ['slack', 'Slack'],
]

/** The secret as the create (or a rotation) answered it: shown here once, with a copy button. */
function SecretOnce({ secret, onClose }: { secret: string; onClose: () => void }) {
  const [copied, setCopied] = useState(false)
  return (
    <section class="panel" aria-label="Signing secret">
      <p>
        The signing secret, shown <strong>this once</strong>: keep it where your receiver can read it.
      </p>
      <p>
        <code data-testid="webhook-secret">{secret}</code>
      </p>
      <button
        type="button"
        onClick={() =>
          navigator.clipboard?.writeText(secret).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        Copy secret
      </button>
      {copied && <span class="muted"> Copied</span>}{' '}
      <button type="button" onClick={onClose}>
        I have kept it
      </button>
    </section>
  )
}

function WebhookForm({ item, done, onSecret }: FormProps<Webhook> & { onSecret: (secret: string) => void }) {
  // Reads show the URL masked: an edit starts empty and sends a URL only when one is typed.
  const [url, setUrl] = useState('')
  const [description, setDescription] = useState(item?.description ?? '')
  const [format, setFormat] = useState<WebhookFormat>(item?.format ?? 'standard')
  const [events, setEvents] = useState<string[]>(item?.events ?? ['webhook.test'])
  const toggle = (type: string, on: boolean) =>
    setEvents(on ? [...events.filter((e) => e !== type), type] : events.filter((e) => e !== type))
  return (
    <ActionForm
      label={item ? `Webhook ${hookName(item)}` : 'New webhook'}
      area="operators"
      disabled={events.length === 0}
      onDone={done}
      save={async () => {
        const body = { url: url.trim(), events, format, description: description.trim() || undefined }
        if (item) {
          const { url: typed, ...rest } = body
          await api('PUT', `/webhooks/${enc(item.id)}`, {
            ...rest,
            ...(typed && { url: typed }),
            description: description.trim() || null,
          })
          return
        }
        const created = await api<Webhook>('POST', '/webhooks', body)
        onSecret(created.secret)
      }}
    >
      <TextField
        label="URL"
        type="url"
        value={url}
        onValue={setUrl}
        required={!item}
        placeholder={item ? item.url : 'https://discord.com/api/webhooks/…'}
        hint={
          item
            ? `Now ${item.url} (shown masked: its token stays secret). Leave empty to keep it.`
            : 'http:// or https://, on a public address'
        }
      />
      <TextField label="Description" value={description} onValue={setDescription} maxLength={500} />
      <SelectField label="Format" value={format} options={FORMATS} onValue={setFormat} />
      <fieldset class="field wide">
        <legend>Events</legend>
        {EVENTS.map((type) => (
          <CheckField
            key={type}
            label={`${type} · ${EVENT_LABELS[type]}`}
            checked={events.includes(type)}
            onValue={(on) => toggle(type, on)}
          />
        ))}
      </fieldset>
    </ActionForm>
  )
}

export default function Webhooks() {
  const [secret, setSecret] = useState<string | null>(null)
  return (
    <div class="stack-table">
      <ListPage<Webhook>
        title="Webhooks"
        path="/webhooks"
        area="operators"
        empty="No webhooks yet: add one to hear about crashes, new leaders and more in Discord, Slack or your own systems."
        create={{ label: 'New webhook', form: (props) => <WebhookForm {...props} onSecret={setSecret} /> }}
        keyOf={(w) => w.id}
        columns={(list) => [
          {
            label: 'Endpoint',
            render: (w) => (
              <Cell label="Endpoint">
                <a class="break" href={`#/webhooks/${enc(w.id)}`}>
                  <MaskedUrl url={w.url} />
                </a>{' '}
                <small class="muted" title="The first 8 hex digits of the URL's SHA-256">
                  #{w.urlFingerprint}
                </small>
                {w.description && <div>{w.description}</div>}
                <small class="muted">
                  added <Time iso={w.createdAt} />
                </small>
              </Cell>
            ),
          },
          {
            label: 'Events',
            render: (w) => (
              <Cell label="Events">
                <strong>{w.format}</strong>
                <ul class="plain">
                  {w.events.map((e) => (
                    <li key={e}>{e}</li>
                  ))}
                </ul>
              </Cell>
            ),
          },
          { label: 'Health', render: (w) => <Cell label="Health">{<Health hook={w} />}</Cell> },
          {
            label: 'Secret',
            render: (w) => (
              <Cell label="Secret">
                <code class="nowrap">{w.secret}</code>
              </Cell>
            ),
          },
          {
            label: 'Actions',
            render: (w) => (
              <RowActions
                name={hookName(w)}
                area="operators"
                onEdit={() => list.edit(w)}
                onDelete={() => list.act(() => api('DELETE', `/webhooks/${enc(w.id)}`), 'Deleted the webhook')}
              >
                <WriteButton
                  write="operators"
                  aria-label={`${w.enabled ? 'Disable' : 'Enable'} ${hookName(w)}`}
                  onClick={() =>
                    list.act(
                      () => api('PUT', `/webhooks/${enc(w.id)}`, { enabled: !w.enabled }),
                      w.enabled ? 'Disabled' : 'Enabled',
                    )
                  }
                >
                  {w.enabled ? 'Disable' : 'Enable'}
                </WriteButton>
                <WriteButton
                  write="operators"
                  aria-label={`Send a test to ${hookName(w)}`}
                  onClick={() =>
                    list.act(() => api('POST', `/webhooks/${enc(w.id)}/test`), 'Test event queued: see its deliveries')
                  }
                >
                  Send test
                </WriteButton>
                <WriteButton
                  write="operators"
                  aria-label={`Rotate the secret of ${hookName(w)}`}
                  onClick={() =>
                    list.act(async () => {
                      const rotated = await api<Webhook>('POST', `/webhooks/${enc(w.id)}/rotate-secret`)
                      setSecret(rotated.secret)
                    }, 'New secret made')
                  }
                >
                  Rotate secret
                </WriteButton>
              </RowActions>
            ),
          },
        ]}
      >
        {secret && <SecretOnce secret={secret} onClose={() => setSecret(null)} />}
      </ListPage>
    </div>
  )
}
