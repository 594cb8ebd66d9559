import { api, enc, get } from '../../../console/src/api'
import type { PageProps } from '../../../console/src/page'
import type { Webhook, WebhookDelivery } from '../../../console/src/types'
import {
  ErrorNote,
  Loading,
  Notice,
  PagedTable,
  Time,
  Title,
  useAction,
  useLoad,
  usePaged,
  WriteButton,
} from '../../../console/src/ui'
import { Cell, Health } from './webhook-health'

/**
 * What a delivery's status means to a person: a pending one that has been tried already failed and
 * waits for its retry ("retrying", with its next try), not for its first attempt.
 */
export function deliveryLabel(d: WebhookDelivery): string {
  if (d.status === 'pending' && d.attempts > 0) return 'retrying'
  if (d.status === 'processing') return 'sending'
  return d.status
}

/** One webhook's deliveries: status, response code, the next try, each attempt, and "Retry". */
export default function WebhookDeliveries({ params }: PageProps) {
  const path = `/webhooks/${enc(params.id)}`
  const loaded = useLoad(() => get<Webhook>(path), [path])
  const deliveries = usePaged<WebhookDelivery>(`${path}/deliveries`, {})
  const action = useAction()
  const hook = loaded.data
  const act = (write: () => Promise<unknown>, success: string) =>
    void action.run(write, success).then(deliveries.reload)
  return (
    <>
      <Title
        actions={
          <>
            <WriteButton write="operators" onClick={() => act(() => api('POST', `${path}/test`), 'Test event queued')}>
              Send test
            </WriteButton>
            <button type="button" onClick={deliveries.reload}>
              Refresh
            </button>
          </>
        }
      >
        Webhook deliveries
      </Title>
      <p>
        <a href="#/webhooks">← Webhooks</a>
      </p>
      <Loading loaded={loaded} />
      {hook && (
        <p>
          <strong class="break">{hook.url}</strong> <small class="muted">#{hook.urlFingerprint}</small> · {hook.format}{' '}
          · <Health hook={hook} />
        </p>
      )}
      <ErrorNote error={action.error} />
      <Notice text={action.notice} />
      <div class="stack-table">
        <PagedTable
          paged={deliveries}
          caption="Deliveries"
          empty="No deliveries yet: send a test."
          columns={[
            { label: 'Event', render: (d) => <Cell label="Event">{d.event}</Cell> },
            {
              label: 'Status',
              render: (d) => (
                <Cell label="Status">
                  <span class={`status status-${deliveryLabel(d)}`}>{deliveryLabel(d)}</span>
                </Cell>
              ),
            },
            {
              label: 'Response',
              render: (d) => (
                <Cell label="Response">
                  {d.responseCode === null ? <span class="muted">none</span> : d.responseCode}
                </Cell>
              ),
            },
            { label: 'Attempts', render: (d) => <Cell label="Attempts">{d.attempts}</Cell> },
            {
              label: 'Duration',
              render: (d) => d.durationMs !== null && <Cell label="Duration">{`${d.durationMs} ms`}</Cell>,
            },
            {
              label: 'Next try',
              render: (d) =>
                d.nextAttemptAt && (
                  <Cell label="Next try">
                    <Time iso={d.nextAttemptAt} />
                  </Cell>
                ),
            },
            {
              label: 'Error',
              render: (d) =>
                d.error && (
                  <Cell label="Error">
                    <small class="break">{d.error}</small>
                  </Cell>
                ),
            },
            {
              label: 'Created',
              render: (d) => (
                <Cell label="Created">
                  <Time iso={d.createdAt} />
                </Cell>
              ),
            },
            {
              label: 'Actions',
              render: (d) => (
                <WriteButton
                  write="operators"
                  disabled={d.status === 'processing'}
                  aria-label={`Retry delivery ${d.id}`}
                  onClick={() => act(() => api('POST', `${path}/deliveries/${enc(d.id)}/retry`), 'Queued again')}
                >
                  Retry
                </WriteButton>
              ),
            },
          ]}
        />
      </div>
    </>
  )
}
