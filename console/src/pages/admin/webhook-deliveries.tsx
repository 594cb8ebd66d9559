import { api, enc, get } from '../../api'
import type { PageProps } from '../../page'
import type { Webhook, WebhookDelivery } from '../../types'
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
} from '../../ui'

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
          <strong>{hook.url}</strong> · {hook.format} · {hook.enabled ? 'enabled' : 'disabled'}
          {hook.disabledReason && <span class="muted"> ({hook.disabledReason})</span>}
        </p>
      )}
      <ErrorNote error={action.error} />
      <Notice text={action.notice} />
      <PagedTable
        paged={deliveries}
        caption="Deliveries"
        empty="No deliveries yet: send a test."
        columns={[
          { label: 'Event', render: (d) => d.event },
          { label: 'Status', render: (d) => <span class={`status status-${d.status}`}>{d.status}</span> },
          {
            label: 'Response',
            render: (d) => (d.responseCode === null ? <span class="muted">none</span> : d.responseCode),
          },
          { label: 'Attempts', render: (d) => d.attempts },
          { label: 'Duration', render: (d) => (d.durationMs === null ? '' : `${d.durationMs} ms`) },
          { label: 'Next try', render: (d) => (d.nextAttemptAt ? <Time iso={d.nextAttemptAt} /> : '') },
          { label: 'Error', render: (d) => (d.error ? <small>{d.error}</small> : '') },
          { label: 'Created', render: (d) => <Time iso={d.createdAt} /> },
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
    </>
  )
}
