// A tool call and its result, collapsed to one line until opened. A call the permission
// policy asked about shows the approval card under it while it waits, then a quiet line
// with the answer on its row. Memoised: a call re-renders only when its own item changes.
import type { SessionSummary } from '@tangent/protocol'
import { memo } from 'react'
import { ApprovalCard, answerText } from './approval-card.js'
import { useScrollRegion } from './scroll-region.js'
import type { ToolItem } from './transcript-model.js'
import { useHost, useStore } from './use-host.js'

export const ToolCall = memo(function ToolCall({
  item,
  sessionId,
  waiting,
  jumpSeq = null,
}: {
  item: ToolItem
  sessionId: string
  waiting: boolean
  /** Set when a jump targets this call (its call, result or approval seq): it opens and is marked. */
  jumpSeq?: number | null
}) {
  const store = useStore()
  // A `task` call links to the subagent it spawned (docs/architecture.md §14.1).
  const subagent = useHost((state) =>
    item.toolName === 'task' ? subagentOf(state.sessions, sessionId, item.callId) : null,
  )
  const status = item.result === null ? 'pending' : item.result.isError ? 'error' : 'ok'
  const permission = item.permission
  const approval = permission?.answer
    ? answerText(permission.answer)
    : permission && !waiting
      ? 'Not answered: the turn ended'
      : null
  return (
    <>
      <details
        className={`tool-call tool-${status}`}
        data-testid="tool-call"
        data-tool={item.toolName}
        data-call-id={item.callId}
        data-seq={item.seq}
        {...(jumpSeq !== null ? { 'data-jump-target': jumpSeq, open: true } : {})}
      >
        <summary>
          <span className="tool-name">{item.toolName}</span>
          <span className="tool-brief">{brief(item.input)}</span>
          {subagent ? (
            <button
              type="button"
              className="action subagent-link"
              data-testid="subagent-link"
              title={`Open the subagent's own session ${subagent.id}`}
              onClick={(event) => {
                event.preventDefault()
                void store.openSession(subagent.id)
              }}
            >
              Open subagent
            </button>
          ) : null}
          {approval !== null ? (
            <span
              className={permission?.answer?.decision === 'deny' ? 'tool-approval denied' : 'tool-approval'}
              data-testid="tool-approval"
              title={approval}
            >
              {approval}
            </span>
          ) : null}
          <span className="tool-status">
            {waiting
              ? 'waiting for approval'
              : status === 'pending'
                ? 'running…'
                : status === 'error'
                  ? 'failed'
                  : 'done'}
          </span>
        </summary>
        <div className="tool-body">
          <div className="tool-label">Input</div>
          <ToolText label={`Input of ${item.toolName}`} testId="tool-input" value={item.input} />
          {item.result ? (
            <>
              <div className="tool-label">{item.result.isError ? 'Error' : 'Result'}</div>
              <ToolText
                label={`${item.result.isError ? 'Error' : 'Result'} of ${item.toolName}`}
                testId="tool-result"
                value={item.result.output}
              />
            </>
          ) : null}
        </div>
      </details>
      {waiting ? <ApprovalCard sessionId={sessionId} item={item} /> : null}
    </>
  )
})

/** The subagent a `task` call of `parentId` spawned, when the list holds it. */
function subagentOf(
  sessions: ReadonlyMap<string, SessionSummary>,
  parentId: string,
  callId: string,
): SessionSummary | null {
  for (const session of sessions.values()) {
    if (session.parentSession === parentId && session.subagentOf?.callId === callId) return session
  }
  return null
}

/** A tool's input or output: scrolls past its height, and then the keyboard can scroll it too. */
function ToolText({ label, testId, value }: { label: string; testId: string; value: unknown }) {
  const region = useScrollRegion<HTMLPreElement>(label)
  return (
    <pre data-testid={testId} {...region}>
      {format(value)}
    </pre>
  )
}

function brief(input: unknown): string {
  if (typeof input !== 'object' || input === null) return input === undefined ? '' : String(input)
  const first = Object.values(input as Record<string, unknown>).find((value) => typeof value === 'string')
  return typeof first === 'string' ? first.split('\n')[0]!.slice(0, 80) : ''
}

function format(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>
    // AI SDK tool outputs arrive as {type: 'text'|'json', value}.
    if ((record.type === 'text' || record.type === 'error-text') && typeof record.value === 'string')
      return record.value
    if (record.type === 'json' || record.type === 'error-json') return JSON.stringify(record.value, null, 2)
  }
  return JSON.stringify(value, null, 2) ?? String(value)
}
