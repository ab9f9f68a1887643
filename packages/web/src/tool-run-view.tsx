// A run of consecutive tool calls as one row (docs/architecture.md §8): a button that says
// what the run did and opens it; while closed, only the calls that failed or wait for an
// approval show under it, so an error is never hidden.
import { memo } from 'react'
import { ToolCall } from './tool-call.js'
import { describeToolRun, isToolError, type ToolRunModel } from './tool-run.js'
import { isWaitingForApproval, type TurnModel } from './transcript-model.js'

export const ToolRun = memo(function ToolRun({
  run,
  turn,
  sessionId,
  open,
  onToggle,
  jumpSeq,
  jumpCallId,
}: {
  run: ToolRunModel
  turn: TurnModel
  sessionId: string
  open: boolean
  onToggle: (key: string) => void
  /** A jump to a call of this run (the run is open then): that call is marked. */
  jumpSeq: number | null
  jumpCallId: string | null
}) {
  const listId = `tool-run-${turn.startSeq}-${run.key}`
  const shown = open
    ? run.tools
    : run.tools.filter((tool) => isToolError(tool) || isWaitingForApproval(turn, tool))
  const errors = run.tools.some(isToolError)
  return (
    <div
      className={errors ? 'tool-run tool-run-errors' : 'tool-run'}
      data-testid="tool-run"
      data-count={run.tools.length}
    >
      <button
        type="button"
        className="tool-run-toggle"
        data-testid="tool-run-toggle"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => onToggle(run.key)}
      >
        <span className="tool-run-chevron" aria-hidden="true" />
        <span className="tool-run-summary" data-testid="tool-run-summary">
          {describeToolRun(run.tools)}
        </span>
        <span className="tool-run-hint">{open ? 'Hide calls' : `Show ${run.tools.length} calls`}</span>
      </button>
      <div className="tool-run-calls" id={listId}>
        {shown.map((tool) => (
          <ToolCall
            key={`tool:${tool.callId}`}
            item={tool}
            sessionId={sessionId}
            waiting={isWaitingForApproval(turn, tool)}
            jumpSeq={tool.callId === jumpCallId ? jumpSeq : null}
          />
        ))}
      </div>
    </div>
  )
})
