// One turn: the user's message (with "Edit in new branch"), the assistant's text and tool
// calls (with their approval cards), live streaming text, changed files, a non-`completed` end reason, its tokens and
// cost, and the turn's actions ("Branch from here", "Try N ways…", "Restore files to here"). Inside a running turn the actions
// are disabled and say why. Three or more consecutive tool calls show as one run (tool-run.ts).
import { memo } from 'react'
import { BranchIcon } from './icon.js'
import { MessageText } from './message-text.js'
import { ToolCall } from './tool-call.js'
import { groupTurnItems } from './tool-run.js'
import { ToolRun } from './tool-run-view.js'
import {
  isWaitingForApproval,
  pendingApprovals,
  type ToolItem,
  type TurnItem,
  type TurnModel,
  type UserImage,
} from './transcript-model.js'
import { useStore } from './use-host.js'

const runningReason =
  'This turn is still running: a branch needs a completed turn. Wait for it to finish (or press Esc to stop it).'

// Memoised: while text streams only the running turn re-renders, not the whole transcript.
export const TurnView = memo(function TurnView(props: {
  sessionId: string
  turn: TurnModel
  isRunning: boolean
  streaming: { text: string; reasoning: string; toolInput: string } | null
  hasSnapshots: boolean
  /** The completed turn's tokens and cost ("in 1.2k · out 340 · $0.0042"), when known. */
  usageText?: string | undefined
  /** Keys of the tool runs the reader opened (kept by the transcript across the window). */
  openRuns: ReadonlySet<string>
  onToggleRun: (key: string) => void
  /** A seq of this turn to bring into view (a jump), or null. */
  jumpSeq: number | null
}) {
  const store = useStore()
  const { turn, isRunning, streaming, sessionId, jumpSeq } = props
  const target = jumpSeq === null ? null : jumpTargetOf(turn, jumpSeq)
  const userText = turn.user?.text ?? ''
  // While a call waits for an answer the card says so; "working" dots would say the opposite.
  const waiting = pendingApprovals(turn).length > 0

  return (
    <section
      className={turn.inherited ? 'turn inherited' : 'turn'}
      data-testid="turn"
      data-start-seq={turn.startSeq}
      data-end-seq={turn.end?.seq ?? ''}
      data-running={isRunning}
      {...(target === 'turn' ? { 'data-jump-target': jumpSeq } : {})}
    >
      {turn.user ? (
        <div
          className="message user-message"
          data-testid="user-message"
          data-seq={turn.user.seq}
          {...(target === 'user' ? { 'data-jump-target': jumpSeq } : {})}
        >
          {userText === '' ? null : <div className="message-body">{userText}</div>}
          {turn.user.images.length > 0 ? <UserImages images={turn.user.images} /> : null}
          <div className="message-actions">
            <button
              type="button"
              className="action"
              data-testid="edit-in-branch"
              aria-haspopup="dialog"
              disabled={isRunning}
              title={
                isRunning
                  ? runningReason
                  : 'Fork just before this message and edit it in the new branch: choose whether it shares this folder or gets its own worktree'
              }
              onClick={() =>
                store.openDialog({
                  kind: 'fork',
                  sessionId,
                  atSeq: turn.user!.seq,
                  before: true,
                  draft: userText,
                })
              }
            >
              Edit in new branch…
            </button>
          </div>
        </div>
      ) : null}
      <div className="assistant">
        {groupTurnItems(turn.items).map((item) => {
          if (item.kind === 'tool-run') {
            const holdsTarget = typeof target === 'object' && item.tools.includes(target as ToolItem)
            return (
              <ToolRun
                key={`run:${item.key}`}
                run={item}
                turn={turn}
                sessionId={sessionId}
                open={holdsTarget || props.openRuns.has(item.key)}
                onToggle={props.onToggleRun}
                jumpSeq={holdsTarget ? jumpSeq : null}
                jumpCallId={holdsTarget ? (target as ToolItem).callId : null}
              />
            )
          }
          if (item.kind === 'tool') {
            return (
              <ToolCall
                key={`tool:${item.callId}`}
                item={item}
                sessionId={sessionId}
                waiting={isWaitingForApproval(turn, item)}
                jumpSeq={target === item ? jumpSeq : null}
              />
            )
          }
          if (item.kind === 'reasoning') {
            return (
              <details
                className="reasoning"
                key={`r:${item.seq}:${item.text.length}`}
                {...(target === item ? { 'data-jump-target': jumpSeq } : {})}
              >
                <summary>Reasoning</summary>
                <div className="message-body">{item.text}</div>
              </details>
            )
          }
          return (
            <div
              className="message assistant-message"
              data-testid="assistant-message"
              data-seq={item.seq}
              key={`t:${item.seq}:${item.text.length}`}
              {...(target === item ? { 'data-jump-target': jumpSeq } : {})}
            >
              <MessageText text={item.text} />
            </div>
          )
        })}
        {streaming && (streaming.text || streaming.reasoning || streaming.toolInput) ? (
          <div className="message assistant-message streaming" data-testid="streaming">
            {streaming.reasoning && !streaming.text ? <div className="muted">Thinking…</div> : null}
            {streaming.toolInput && !streaming.text ? (
              <div className="muted">Preparing a tool call…</div>
            ) : null}
            {/* The same renderer as the finished message (no jump when it lands); the caret
                follows the last paragraph in CSS. */}
            {streaming.text ? <MessageText text={streaming.text} streaming /> : null}
          </div>
        ) : isRunning && !waiting ? (
          <div className="message assistant-message streaming" data-testid="working">
            <span className="working-dots" role="status" aria-label="Working">
              <span />
              <span />
              <span />
            </span>
          </div>
        ) : null}
      </div>
      {turn.changed.length > 0 ? (
        <div className="changed-files" data-testid="changed-files">
          <span className="muted">Changed</span>
          {turn.changed.map((path) => (
            <code key={path} className="changed-path" data-testid="changed-file">
              {path}
            </code>
          ))}
        </div>
      ) : null}
      {turn.end && turn.end.reason !== 'completed' ? (
        <div
          className={`turn-end turn-end-${turn.end.reason}`}
          data-testid="turn-end-reason"
          data-reason={turn.end.reason}
        >
          Turn ended: {turn.end.reason}
          {turn.end.error ? ` — ${turn.end.error}` : ''}
        </div>
      ) : null}
      <div className="turn-actions">
        <button
          type="button"
          className="action"
          data-testid="branch-from-here"
          aria-haspopup="dialog"
          disabled={isRunning || !turn.end}
          title={
            isRunning
              ? runningReason
              : 'Start a new branch that continues after this turn: choose whether it shares this folder or gets its own worktree'
          }
          onClick={() => turn.end && store.openDialog({ kind: 'fork', sessionId, atSeq: turn.end.seq })}
        >
          <BranchIcon size={12} /> Branch from here…
        </button>
        <button
          type="button"
          className="action subtle"
          data-testid="try-ways"
          disabled={isRunning || !turn.end}
          title={isRunning ? runningReason : 'Start several branches from this turn and compare them'}
          onClick={() => turn.end && store.openDialog({ kind: 'explore', sessionId, atSeq: turn.end.seq })}
        >
          Try N ways…
        </button>
        {props.hasSnapshots ? (
          <button
            type="button"
            className="action subtle"
            data-testid="restore-files"
            disabled={isRunning || !turn.end}
            title={
              isRunning
                ? 'This turn is still running: restore files once it has finished.'
                : 'Put the files this session changed back to how they were at the end of this turn'
            }
            onClick={() => turn.end && void store.restore(sessionId, turn.end.seq)}
          >
            Restore files to here
          </button>
        ) : null}
        {props.usageText ? (
          <span className="turn-usage" data-testid="turn-usage" title="Tokens and cost of this turn">
            {props.usageText}
          </span>
        ) : null}
        {turn.end ? (
          <span className="seq" title="Seq of this turn's end">
            #{turn.end.seq}
          </span>
        ) : null}
      </div>
    </section>
  )
})

/**
 * Where in a turn event `seq` shows: the item it belongs to (a call with its result and its
 * approval), else the last item before it, else the user's message, else the turn itself.
 */
function jumpTargetOf(turn: TurnModel, seq: number): TurnItem | 'user' | 'turn' {
  let before: TurnItem | null = null
  for (const item of turn.items) {
    const seqs =
      item.kind === 'tool'
        ? [item.seq, item.result?.seq, item.permission?.seq, item.permission?.answer?.seq]
        : [item.seq]
    if (seqs.includes(seq)) return item
    if (item.seq <= seq) before = item
  }
  if (before) return before
  return turn.user && seq >= turn.user.seq ? 'user' : 'turn'
}

/**
 * The images a message carried, as thumbnails. Not links: browsers do not open a data: URL in
 * a tab of its own.
 */
function UserImages(props: { images: readonly UserImage[] }) {
  return (
    <div className="message-images" data-testid="user-images">
      {props.images.map((image, index) => {
        const label = `Image ${index + 1} (${image.mediaType})`
        return (
          <img
            // biome-ignore lint/suspicious/noArrayIndexKey: a message's images never reorder
            key={index}
            className="message-image"
            src={`data:${image.mediaType};base64,${image.data}`}
            alt={label}
            title={label}
            data-media-type={image.mediaType}
          />
        )
      })}
    </div>
  )
}
