import { api, download } from '../../../console/src/api'
import type { AdminRun as Run } from '../../../console/src/types'
import { useAction, WriteButton, ErrorNote } from '../../../console/src/ui'

/** Approve or reject one run; a rejection takes its score off the board. */
export function ReviewButtons({ run, onDone }: { run: Run; onDone: () => void }) {
  const action = useAction()
  const review = (verdict: 'APPROVED' | 'REJECTED') =>
    action.run(() => api('POST', `/validated-actions/runs/${run.runId}/review`, { verdict })).then(onDone)
  if (run.review.verdict)
    return (
      <span class={`badge ${run.review.verdict === 'APPROVED' ? 'good' : 'bad'}`}>
        {run.review.verdict.toLowerCase()}
      </span>
    )
  return (
    <span class="actions">
      <WriteButton
        disabled={action.busy}
        onClick={() => review('APPROVED')}
        aria-label={`Approve run ${run.runId.slice(0, 8)}`}
      >
        Approve
      </WriteButton>
      <WriteButton
        danger
        disabled={action.busy}
        onClick={() => review('REJECTED')}
        aria-label={`Reject run ${run.runId.slice(0, 8)}`}
      >
        Reject
      </WriteButton>
      <ErrorNote error={action.error} />
    </span>
  )
}

export function EvidenceButton({ run }: { run: Run }) {
  const action = useAction()
  if (run.evidence.status !== 'UPLOADED') return <span class="muted">{run.evidence.status.toLowerCase()}</span>
  return (
    <>
      <button
        type="button"
        disabled={action.busy}
        onClick={() =>
          action.run(() => download(`/validated-actions/runs/${run.runId}/evidence`, `run-${run.runId}.log`))
        }
      >
        Download evidence
      </button>
      <ErrorNote error={action.error} />
    </>
  )
}
