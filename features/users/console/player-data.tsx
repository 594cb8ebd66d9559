// What the player's export holds that no other admin list shows: sessions, profile, cloud save, board
// entries and gift-code redemptions. One request (GET /users/{id}/export) fills every section.
import { download, saveBlob } from '../../../console/src/api'
import type { UserExport } from '../../../console/src/types'
import { ErrorNote, Json, Loading, num, Table, Time, useAction, type Loaded } from '../../../console/src/ui'

/** The save's bytes as stored: binary saves come base64-encoded in the export. */
function saveBytes(save: NonNullable<UserExport['cloudSave']>): Blob {
  if (save.encoding === 'utf8') return new Blob([save.data], { type: 'application/octet-stream' })
  const binary = atob(save.data)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return new Blob([bytes], { type: 'application/octet-stream' })
}

function sessionState(s: UserExport['sessions'][number], now: number): string {
  if (s.revokedAt) return 'revoked'
  const end = Math.max(Date.parse(s.expiresAt), s.refreshExpiresAt ? Date.parse(s.refreshExpiresAt) : 0)
  return end > now ? 'active' : 'expired'
}

export function ExportButton({ userId }: { userId: string }) {
  const action = useAction()
  return (
    <>
      <button
        type="button"
        disabled={action.busy}
        onClick={() => action.run(() => download(`/users/${userId}/export`, `player-${userId}.json`))}
      >
        Export
      </button>
      <ErrorNote error={action.error} />
    </>
  )
}

export function PlayerData({ userId, loaded }: { userId: string; loaded: Loaded<UserExport> }) {
  const data = loaded.data
  const now = Date.now()
  return (
    <>
      <Loading loaded={loaded} />
      {data && (
        <>
          <section aria-labelledby="sessions-title">
            <h2 id="sessions-title">Sessions</h2>
            {data.sessions.length === 0 ? (
              <p class="muted">No sessions.</p>
            ) : (
              <Table
                items={data.sessions}
                caption="Sessions"
                columns={[
                  { label: 'Session', render: (s) => <code>{s.sessionId.slice(0, 8)}</code> },
                  { label: 'State', render: (s) => sessionState(s, now) },
                  { label: 'Signed in', render: (s) => <Time iso={s.createdAt} /> },
                  { label: 'Expires', render: (s) => <Time iso={s.expiresAt} /> },
                  { label: 'Revoked', render: (s) => <Time iso={s.revokedAt} /> },
                ]}
              />
            )}
          </section>
          <section aria-labelledby="profile-title">
            <h2 id="profile-title">Profile</h2>
            {data.profile ? (
              <dl class="facts panel">
                <dt>Avatar</dt>
                <dd>{data.profile.avatarId ?? '—'}</dd>
                <dt>Frame</dt>
                <dd>{data.profile.frameId ?? '—'}</dd>
                <dt>Badges</dt>
                <dd>{data.profile.badges.join(', ') || '—'}</dd>
                <dt>Custom data</dt>
                <dd>
                  <Json value={data.profile.customData} />
                </dd>
              </dl>
            ) : (
              <p class="muted">No profile yet.</p>
            )}
          </section>
          <section aria-labelledby="save-title">
            <h2 id="save-title">Cloud save</h2>
            {data.cloudSave ? (
              <div class="panel">
                <p>
                  Version {data.cloudSave.version}, {num(data.cloudSave.sizeBytes)} bytes
                  {data.cloudSave.encoding === 'base64' ? ' (binary)' : ''}, saved{' '}
                  <Time iso={data.cloudSave.updatedAt} />{' '}
                  <button
                    type="button"
                    onClick={() => saveBlob(saveBytes(data.cloudSave!), `cloud-save-${userId}.bin`)}
                  >
                    Download save
                  </button>
                </p>
                {data.cloudSave.encoding === 'utf8' ? (
                  <pre class="json" aria-label="Cloud save data">
                    {data.cloudSave.data}
                  </pre>
                ) : (
                  <p class="muted">A binary save: download it to look inside.</p>
                )}
              </div>
            ) : (
              <p class="muted">No cloud save.</p>
            )}
          </section>
          <section aria-labelledby="entries-title">
            <h2 id="entries-title">Board entries</h2>
            {data.leaderboardEntries.length === 0 ? (
              <p class="muted">No board entries.</p>
            ) : (
              <Table
                items={data.leaderboardEntries}
                caption="Board entries"
                columns={[
                  {
                    label: 'Board',
                    render: (e) => (
                      <a href={`#/leaderboards/${encodeURIComponent(e.leaderboardKey)}`}>{e.leaderboardKey}</a>
                    ),
                  },
                  { label: 'Period', render: (e) => e.period },
                  { label: 'Score', render: (e) => num(e.score), numeric: true },
                  { label: 'Reached', render: (e) => <Time iso={e.reachedAt} /> },
                  {
                    label: 'Shown',
                    render: (e) => (e.hidden ? <span class="badge bad">hidden (banned from board)</span> : 'yes'),
                  },
                ]}
              />
            )}
            {data.leaderboardBans.length > 0 && (
              <p>
                Banned from:{' '}
                {data.leaderboardBans.map((b) => `${b.leaderboardKey}${b.reason ? ` (${b.reason})` : ''}`).join(', ')}
              </p>
            )}
          </section>
          <section aria-labelledby="redemptions-title">
            <h2 id="redemptions-title">Redemptions</h2>
            {data.giftCodeRedemptions.length === 0 ? (
              <p class="muted">No gift codes redeemed.</p>
            ) : (
              <Table
                items={data.giftCodeRedemptions}
                caption="Redemptions"
                columns={[
                  { label: 'Code', render: (r) => <a href={`#/gift-codes/${encodeURIComponent(r.code)}`}>{r.code}</a> },
                  { label: 'Gift data', render: (r) => <code class="clip">{r.giftData}</code> },
                  { label: 'Unlocks', render: (r) => r.grantedUnlocks.join(', ') },
                  { label: 'Redeemed', render: (r) => <Time iso={r.redeemedAt} /> },
                ]}
              />
            )}
          </section>
        </>
      )}
    </>
  )
}
