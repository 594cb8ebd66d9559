import { get } from '../../../console/src/api'
import type { PageProps } from '../../../console/src/page'
import type { AdminRunDetail } from '../../../console/src/types'
import { Json, Loading, Time, Title, useLoad } from '../../../console/src/ui'
import { EvidenceButton, ReviewButtons } from './review'

export default function RunPage({ params }: PageProps) {
  const loaded = useLoad(() => get<AdminRunDetail>(`/validated-actions/runs/${params.runId}`), [params.runId])
  const run = loaded.data
  return (
    <>
      <Title>Run {params.runId.slice(0, 8)}</Title>
      <p>
        <a href="#/runs">← Validated runs</a>
      </p>
      <Loading loaded={loaded} />
      {run && (
        <>
          <section class="panel" aria-label="Run">
            <dl class="facts">
              <dt>Run id</dt>
              <dd>
                <code>{run.runId}</code>
              </dd>
              <dt>Player</dt>
              <dd>
                <a href={`#/players/${run.userId}`}>{run.userId}</a>
              </dd>
              <dt>Board</dt>
              <dd>{run.leaderboardKey ?? '—'}</dd>
              <dt>Outcome</dt>
              <dd>
                {run.outcome} {run.reason && `(${run.reason})`}
              </dd>
              <dt>Score</dt>
              <dd>
                {run.score ?? '—'} {run.stage && `at ${run.stage}`} {run.rank !== null && `· rank ${run.rank}`}
              </dd>
              <dt>Duration</dt>
              <dd>{run.durationSeconds === null ? '—' : `${run.durationSeconds} s`}</dd>
              <dt>Issued</dt>
              <dd>
                <Time iso={run.issuedAt} />
              </dd>
              <dt>Submitted</dt>
              <dd>
                <Time iso={run.submittedAt} />
              </dd>
              <dt>Suspicious</dt>
              <dd>{run.sus ? `yes: ${run.susReasons.join(', ')}` : 'no'}</dd>
              <dt>Evidence</dt>
              <dd>
                <EvidenceButton run={run} />
              </dd>
              <dt>Review</dt>
              <dd>
                {run.sus && run.outcome === 'ACCEPTED' ? (
                  <ReviewButtons run={run} onDone={loaded.reload} />
                ) : (
                  'not needed'
                )}
                {run.review.scoreRemoved && ' (score removed from the board)'}
              </dd>
            </dl>
          </section>
          <h2>Context</h2>
          <Json value={run.context} />
          <h2>Earned</h2>
          <Json value={run.earned} />
          <h2>Submissions</h2>
          {run.submissions.length === 0 && <p class="muted">No submissions.</p>}
          <ul>
            {run.submissions.map((s, i) => (
              <li key={i}>
                {s.code} ({s.status}) <Time iso={s.at} />
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  )
}
