// One crash report as an operator reads it: the stack trace as lines in its own scrolling box, the
// device and the player as facts, the breadcrumbs and custom keys as tables rather than JSON.
import type { ComponentChildren } from 'preact'
import type { CrashOccurrence } from '../../../console/src/types'
import { num, Table, Time } from '../../../console/src/ui'

/** What a crash is called in lists and titles: its message's first line, or its type when it has none. */
export const crashTitle = (crash: { message: string; type: string }) =>
  crash.message.split('\n')[0].trim() || `${crash.type} without a message`

/** A player link named by the player's name when known, else by the id the client sent. */
export function PlayerLink({
  userId,
  name,
  fallback,
}: {
  userId: string | null
  name?: string | null
  fallback: string
}) {
  if (!userId) return fallback ? <code>{fallback}</code> : <span class="muted">anonymous</span>
  return <a href={`#/players/${userId}`}>{name ?? fallback}</a>
}

/** A stack trace as the client sent it: real lines, scrolled sideways inside its box, never the page. */
export function StackTrace({ trace, label }: { trace: string; label: string }) {
  if (!trace.trim()) return <p class="muted">No stack trace was sent.</p>
  return (
    <pre class="trace" tabIndex={0} aria-label={label}>
      {trace}
    </pre>
  )
}

function Fact({ term, children }: { term: string; children: ComponentChildren }) {
  return (
    <>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </>
  )
}

export function Occurrence({ report, names }: { report: CrashOccurrence; names: Map<string, string> }) {
  const keys = Object.entries(report.customKeys)
  return (
    <section class="panel occurrence" aria-labelledby="occurrence-title">
      <h3 id="occurrence-title">
        {report.type} at <Time iso={report.createdAt} />
      </h3>
      {report.message && <p class="crash-message">{report.message}</p>}
      <StackTrace trace={report.stackTrace} label="Stack trace" />
      <dl class="facts">
        <Fact term="Player">
          <PlayerLink
            userId={report.linkedUserId}
            name={report.linkedUserId ? names.get(report.linkedUserId) : null}
            fallback={report.userId}
          />
        </Fact>
        <Fact term="App version">{report.appVersion || '—'}</Fact>
        <Fact term="SDK version">{report.sdkVersion || '—'}</Fact>
        <Fact term="Platform">{[report.platform, report.os].filter(Boolean).join(' · ') || '—'}</Fact>
        <Fact term="Device">
          {report.deviceModel || '—'}
          {report.deviceMemoryMb !== null && ` (${num(report.deviceMemoryMb)} MB)`}
        </Fact>
        <Fact term="Session">
          <code>{report.sessionId}</code>
        </Fact>
        {report.truncated && <Fact term="Truncated">Some field was over its limit and was shortened.</Fact>}
      </dl>
      <h4>Breadcrumbs</h4>
      <Table
        items={report.breadcrumbs}
        caption="Breadcrumbs"
        empty="No breadcrumbs."
        columns={[
          { label: 'At', render: (b) => b.timestamp },
          { label: 'Type', render: (b) => b.type },
          { label: 'Message', render: (b) => b.message },
        ]}
      />
      <h4>Custom keys</h4>
      {keys.length === 0 ? (
        <p class="muted">No custom keys.</p>
      ) : (
        <dl class="facts">
          {keys.map(([key, value]) => (
            <Fact key={key} term={key}>
              <code>{value}</code>
            </Fact>
          ))}
        </dl>
      )}
    </section>
  )
}
