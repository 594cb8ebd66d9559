import { useState } from 'preact/hooks'
import { api, enc, get } from '../../../console/src/api'
import type { PageProps } from '../../../console/src/page'
import type {
  AdminFeedback,
  AdminRun,
  AdminUnlocks,
  AdminUser,
  AdminUserLog,
  PlayerState,
  UserExport,
} from '../../../console/src/types'
import {
  ConfirmButton,
  CosmeticPicker,
  ErrorNote,
  Loading,
  Notice,
  num,
  PagedTable,
  SaveForm,
  Table,
  Tabs,
  TextField,
  Time,
  Title,
  useAction,
  useCanWrite,
  useLoad,
  usePaged,
  WriteButton,
} from '../../../console/src/ui'
import { ExportButton, PlayerData } from './player-data'
import { PlayerCrashes } from './player-crashes'
import { PlayerSummary } from './player-summary'
import { ActionForm } from '../../../console/src/list'

function Ban({ user, reload }: { user: AdminUser; reload: () => void }) {
  const [reason, setReason] = useState('')
  const action = useAction()
  return (
    <section aria-labelledby="ban-title">
      <h2 id="ban-title">Ban</h2>
      {user.banned ? (
        <div class="panel">
          <p>
            Banned since <Time iso={user.bannedAt} />
            {user.banReason ? ` — ${user.banReason}` : ''}. Every app call of this player is refused with USER_BANNED.
          </p>
          <WriteButton
            disabled={action.busy}
            onClick={() => action.run(() => api('POST', `/users/${user.userId}/unban`), 'Unbanned').then(reload)}
          >
            Unban
          </WriteButton>
        </div>
      ) : (
        <SaveForm
          label="Ban this player"
          submit="Ban"
          busy={action.busy}
          onSave={() =>
            action
              .run(
                () => api('POST', `/users/${user.userId}/ban`, reason.trim() ? { reason: reason.trim() } : {}),
                'Banned',
              )
              .then(reload)
          }
        >
          <TextField label="Reason" value={reason} onValue={setReason} maxLength={500} />
          <p class="muted small">Banning refuses every app call of the player until unbanned.</p>
        </SaveForm>
      )}
      <ErrorNote error={action.error} />
      <Notice text={action.notice} />
    </section>
  )
}

function SignOut({ user, reload }: { user: AdminUser; reload: () => void }) {
  const action = useAction()
  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sign out</h2>
      <div class="panel">
        <p>
          {user.activeSessions} active session{user.activeSessions === 1 ? '' : 's'}. Revoking signs the player out on
          every device; they can sign in again unless banned.
        </p>
        <ConfirmButton
          label="Revoke sessions"
          disabled={action.busy || user.activeSessions === 0}
          onConfirm={() =>
            action.run(() => api('POST', `/users/${user.userId}/revoke-sessions`), 'Sessions revoked').then(reload)
          }
        />
      </div>
      <ErrorNote error={action.error} />
      <Notice text={action.notice} />
    </section>
  )
}

function Delete({ user }: { user: AdminUser }) {
  const [typed, setTyped] = useState('')
  const action = useAction()
  const name = user.username
  const allowed = useCanWrite()
  return (
    <section aria-labelledby="delete-title">
      <h2 id="delete-title">Delete</h2>
      <div class="panel">
        <p>Deleting erases every piece of this player's data, for good.</p>
        <div class="actions">
          <TextField label={`Type “${name}” to confirm`} value={typed} onValue={setTyped} disabled={!allowed} />
          <ConfirmButton
            label="Delete player"
            disabled={typed !== name || action.busy}
            onConfirm={() =>
              action.run(async () => {
                await api('DELETE', `/users/${user.userId}`)
                window.location.hash = '#/players'
              })
            }
          />
        </div>
        <ErrorNote error={action.error} />
      </div>
    </section>
  )
}

function Unlocks({ userId }: { userId: string }) {
  const loaded = useLoad(() => get<AdminUnlocks>(`/users/${userId}/unlocks`), [userId])
  const [ids, setIds] = useState<string[]>([])
  const action = useAction()
  return (
    <section aria-labelledby="unlocks-title">
      <h2 id="unlocks-title">Unlocks</h2>
      <Loading loaded={loaded} />
      {loaded.data && (
        <div class="panel">
          <p class="muted small">
            {loaded.data.unlocks.length} of at most {loaded.data.maxUnlocks}
          </p>
          {loaded.data.unlocks.length === 0 && <p class="muted">No unlocks yet.</p>}
          <ul>
            {loaded.data.unlocks.map((id) => (
              <li key={id}>
                <code>{id}</code>{' '}
                <ConfirmButton
                  label={`Take back ${id}`}
                  onConfirm={() =>
                    action.run(() => api('DELETE', `/users/${userId}/unlocks/${enc(id)}`)).then(loaded.reload)
                  }
                />
              </li>
            ))}
          </ul>
        </div>
      )}
      <ErrorNote error={action.error} />
      <ActionForm
        label="Grant cosmetics"
        submit="Grant"
        save={() => api('POST', `/users/${userId}/unlocks`, { ids })}
        success="Granted"
        disabled={ids.length === 0}
        onDone={() => {
          setIds([])
          loaded.reload()
        }}
      >
        <CosmeticPicker value={ids} onValue={setIds} owned={loaded.data?.unlocks} />
      </ActionForm>
    </section>
  )
}

function ValuesPanel({ userId }: { userId: string }) {
  const loaded = useLoad(() => get<PlayerState>(`/users/${userId}/values`), [userId])
  const [key, setKey] = useState('')
  const [amount, setAmount] = useState('')
  const [reason, setReason] = useState('')
  return (
    <section aria-labelledby="values-title">
      <h2 id="values-title">Values</h2>
      <Loading loaded={loaded} />
      {loaded.data && (
        <Table
          items={loaded.data.values}
          caption="Balances"
          empty="No balances yet."
          columns={[
            { label: 'Key', render: (v) => v.key },
            { label: 'Balance', render: (v) => num(v.balance), numeric: true },
            { label: `Earned today (${loaded.data.day})`, render: (v) => num(v.earnedToday), numeric: true },
            { label: 'Daily cap', render: (v) => num(v.dailyCap), numeric: true },
          ]}
        />
      )}
      <ActionForm
        label="Adjust a balance"
        submit="Adjust"
        save={() =>
          api('POST', `/users/${userId}/values`, {
            key,
            amount: Number(amount),
            ...(reason.trim() && { reason: reason.trim() }),
          })
        }
        success="Adjusted"
        onDone={loaded.reload}
      >
        <TextField label="Key" value={key} onValue={setKey} required />
        <TextField label="Amount" value={amount} onValue={setAmount} inputMode="numeric" required />
        <TextField label="Reason" value={reason} onValue={setReason} />
      </ActionForm>
    </section>
  )
}

type Tab = 'account' | 'data' | 'items' | 'activity' | 'crashes'
const TABS = [
  ['account', 'Account'],
  ['data', 'Data'],
  ['items', 'Items'],
  ['activity', 'Activity'],
  ['crashes', 'Crashes'],
] as const

function Activity({ userId }: { userId: string }) {
  const runs = usePaged<AdminRun>('/validated-actions/runs', { userId }, 10)
  const feedback = usePaged<AdminFeedback>('/user-feedback', { userId }, 10)
  const logs = usePaged<AdminUserLog>('/user-logs', { userId }, 10)
  return (
    <>
      <h2>Runs</h2>
      <PagedTable
        paged={runs}
        caption="Runs"
        empty="No validated runs."
        columns={[
          { label: 'Run', render: (r) => <a href={`#/runs/${r.runId}`}>{r.runId.slice(0, 8)}</a> },
          { label: 'Board', render: (r) => r.leaderboardKey ?? '—' },
          { label: 'Outcome', render: (r) => r.outcome },
          { label: 'Score', render: (r) => num(r.score), numeric: true },
          { label: 'Sus', render: (r) => (r.sus ? <span class="badge bad">sus</span> : '') },
          { label: 'Issued', render: (r) => <Time iso={r.issuedAt} /> },
        ]}
      />
      <h2>Feedback</h2>
      <PagedTable
        paged={feedback}
        caption="Feedback"
        empty="No feedback from this player."
        columns={[
          { label: 'Category', render: (f) => f.category },
          { label: 'Title', render: (f) => f.title },
          { label: 'Message', render: (f) => f.message },
          { label: 'Sent', render: (f) => <Time iso={f.createdAt} /> },
        ]}
      />
      <h2>Logs</h2>
      <PagedTable
        paged={logs}
        caption="Logs"
        empty="No logs from this player."
        columns={[
          { label: 'Type', render: (l) => l.type },
          { label: 'Message', render: (l) => l.message },
          { label: 'Error code', render: (l) => l.errorCode ?? '' },
          { label: 'At', render: (l) => <Time iso={l.createdAt} /> },
        ]}
      />
    </>
  )
}

function Account({ user, reload }: { user: AdminUser; reload: () => void }) {
  return (
    <>
      <section class="panel" aria-label="Profile">
        <dl class="facts">
          <dt>User id</dt>
          <dd>
            <code>{user.userId}</code>
          </dd>
          <dt>Username</dt>
          <dd>{user.username}</dd>
          <dt>Display name</dt>
          <dd>{user.displayName}</dd>
          <dt>E-mail</dt>
          <dd>
            {user.email ?? '—'} {user.email && (user.isVerified ? '(verified)' : '(not verified)')}
          </dd>
          <dt>Kind</dt>
          <dd>{user.isAnonymous ? 'anonymous' : 'account'}</dd>
        </dl>
      </section>
      <Ban user={user} reload={reload} />
      <SignOut user={user} reload={reload} />
      <Delete user={user} />
    </>
  )
}

export default function Player({ params }: PageProps) {
  const userId = params.userId
  const loaded = useLoad(() => get<AdminUser>(`/users/${userId}`), [userId])
  const exported = useLoad(() => get<UserExport>(`/users/${userId}/export`), [userId])
  const [tab, setTab] = useState<Tab>('account')
  const user = loaded.data
  const reload = () => {
    loaded.reload()
    exported.reload()
  }
  return (
    <>
      <Title actions={<ExportButton userId={userId} />}>{user ? user.username : 'Player'}</Title>
      <p>
        <a href="#/players">← Players</a>
      </p>
      <Loading loaded={loaded} />
      {user && (
        <>
          <PlayerSummary user={user} data={exported.data} />
          <Tabs label="Player sections" tabs={TABS} value={tab} onValue={setTab}>
            {tab === 'account' && <Account user={user} reload={reload} />}
            {tab === 'data' && <PlayerData userId={userId} loaded={exported} />}
            {tab === 'items' && (
              <>
                <Unlocks userId={userId} />
                <ValuesPanel userId={userId} />
              </>
            )}
            {tab === 'activity' && <Activity userId={userId} />}
            {tab === 'crashes' && <PlayerCrashes loaded={exported} />}
          </Tabs>
        </>
      )}
    </>
  )
}
