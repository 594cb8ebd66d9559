import { api, enc, get } from '../../../console/src/api'
import type { PageProps } from '../../../console/src/page'
import type { AdminGiftCode, Redemption } from '../../../console/src/types'
import {
  ConfirmButton,
  ErrorNote,
  Loading,
  Notice,
  PagedTable,
  Time,
  Title,
  useAction,
  useLoad,
  usePaged,
} from '../../../console/src/ui'

export default function GiftCodePage({ params }: PageProps) {
  const path = `/gift-codes/${enc(params.code)}`
  const loaded = useLoad(() => get<AdminGiftCode>(path), [path])
  const redemptions = usePaged<Redemption>(`${path}/redemptions`, {})
  const action = useAction()
  const code = loaded.data
  return (
    <>
      <Title
        actions={
          <ConfirmButton
            label="Revoke code"
            disabled={!code || code.revoked}
            onConfirm={() => action.run(() => api('POST', `${path}/revoke`), 'Revoked').then(loaded.reload)}
          />
        }
      >
        {params.code}
      </Title>
      <p>
        <a href="#/gift-codes">← Gift codes</a>
      </p>
      <ErrorNote error={action.error} />
      <Notice text={action.notice} />
      <Loading loaded={loaded} />
      {code && (
        <section class="panel" aria-label="Gift code">
          <dl class="facts">
            <dt>Status</dt>
            <dd>{code.status}</dd>
            <dt>Redeemed</dt>
            <dd>
              {code.redemptionCount} of {code.maxRedemptions}
            </dd>
            <dt>Gift data</dt>
            <dd>{code.giftData}</dd>
            <dt>Grants</dt>
            <dd>{code.grants.join(', ') || '—'}</dd>
            <dt>Starts</dt>
            <dd>
              <Time iso={code.startsAt} />
            </dd>
            <dt>Expires</dt>
            <dd>
              <Time iso={code.expiresAt} />
            </dd>
          </dl>
        </section>
      )}
      <h2>Redemptions</h2>
      <PagedTable
        paged={redemptions}
        caption="Redemptions"
        empty="Not redeemed yet."
        columns={[
          { label: 'Player', render: (r) => <a href={`#/players/${r.userId}`}>{r.userId}</a> },
          { label: 'Granted', render: (r) => r.grantedUnlocks.join(', ') },
          { label: 'Redeemed', render: (r) => <Time iso={r.redeemedAt} /> },
        ]}
      />
    </>
  )
}
