// The open session's conversation. Sticks to the bottom while text streams, unless the
// reader scrolled up; the streaming block keeps its place so nothing jumps. With no session
// open: a one-click start in the selected workspace.

import { formatUsage } from '@tangent/protocol'
import { useLayoutEffect, useMemo, useRef, useState } from 'react'
import { subjectOf } from './approval-card.js'
import { ContextRow } from './context-row.js'
import { ExplorationRow } from './exploration-rows.js'
import { BranchIcon } from './icon.js'
import { RestoreRow } from './restore-row.js'
import { titleOf } from './session-display.js'
import { buildTranscript, openTurn, pendingApprovals } from './transcript-model.js'
import { TurnView } from './turn-view.js'
import { useHost, useStore } from './use-host.js'

export function Transcript() {
  const transcript = useHost((state) => state.transcript)
  const session = useHost((state) =>
    state.openSessionId === null ? undefined : state.sessions.get(state.openSessionId),
  )
  const parent = useHost((state) =>
    session?.parentSession ? state.sessions.get(session.parentSession) : undefined,
  )
  const events = transcript?.events
  const inherited = session?.inheritedEventCount ?? 0
  const blocks = useMemo(() => buildTranscript(events ?? [], inherited), [events, inherited])
  const running = openTurn(blocks)
  const waiting = pendingApprovals(running)[0]
  const hasSnapshots = useMemo(
    () => (events ?? []).some((event) => event.type === 'snapshot/taken' || event.type === 'files/restored'),
    [events],
  )

  const scroller = useRef<HTMLDivElement>(null)
  const pinned = useRef(true)
  const streaming = transcript?.streaming
  const usage = transcript?.usage
  // A string per turn, so a memoised turn re-renders only when its own figures change.
  const turnUsage = useMemo(() => new Map(usage?.turns.map((turn) => [turn.seq, formatUsage(turn)])), [usage])
  useLayoutEffect(() => {
    const element = scroller.current
    if (element && pinned.current && (events || streaming)) element.scrollTop = element.scrollHeight
  }, [events, streaming])

  if (!transcript || !session) return <StartHere />

  return (
    <div
      className="transcript"
      data-testid="transcript"
      data-session-id={transcript.sessionId}
      data-loading={transcript.loading}
      ref={scroller}
      onScroll={(event) => {
        const element = event.currentTarget
        pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight < 40
      }}
    >
      {/* Says "Approval needed" politely when a card appears (the card itself takes focus). */}
      <div className="visually-hidden" role="status" aria-live="polite" data-testid="approval-announcer">
        {waiting ? `Approval needed: ${waiting.toolName} ${subjectOf(waiting.input)}` : ''}
      </div>
      <div className="transcript-inner">
        {transcript.loading ? <p className="muted center">Loading…</p> : null}
        {!transcript.loading && blocks.length === 0 ? (
          <p className="muted center" data-testid="transcript-start">
            Send a message to start.
          </p>
        ) : null}
        {blocks.map((block) => {
          if (block.kind === 'fork-point') {
            return (
              <div className="divider fork-divider" key={`fork:${block.seq}`} data-testid="fork-divider">
                <span>
                  <BranchIcon size={12} /> Forked from {parent ? titleOf(parent) : 'its parent'}
                  {block.seq >= 0 ? ` after #${block.seq}` : ' at the start'} — above is shared history
                </span>
              </div>
            )
          }
          if (block.kind === 'restore') {
            return (
              <RestoreRow
                key={`restore:${block.seq}`}
                sessionId={session.id}
                restore={block}
                running={running !== null}
              />
            )
          }
          if (
            block.kind === 'instructions' ||
            block.kind === 'compaction' ||
            block.kind === 'compaction-failed'
          ) {
            return <ContextRow key={`context:${block.seq}`} context={block} />
          }
          if (block.kind === 'exploration' || block.kind === 'kept' || block.kind === 'check') {
            return <ExplorationRow key={`${block.kind}:${block.seq}`} block={block} />
          }
          if (block.kind === 'model') {
            return (
              <div className="divider" key={`model:${block.seq}`}>
                <span>model {block.model}</span>
              </div>
            )
          }
          return (
            <TurnView
              key={block.turn.startSeq}
              sessionId={session.id}
              turn={block.turn}
              isRunning={block.turn === running}
              streaming={block.turn === running ? transcript.streaming : null}
              hasSnapshots={hasSnapshots}
              usageText={block.turn.end ? turnUsage.get(block.turn.startSeq) : undefined}
            />
          )
        })}
      </div>
    </div>
  )
}

/**
 * No session open: start one in the selected workspace (on a first run, the folder the Host
 * was started in) with one click, or open a folder when there is none.
 */
function StartHere() {
  const store = useStore()
  const workspace = useHost((state) =>
    state.workspaces.find((candidate) => candidate.id === state.activeWorkspaceId),
  )
  const connected = useHost((state) => state.connection === 'open')
  const [starting, setStarting] = useState(false)

  async function start() {
    if (!workspace) return
    setStarting(true)
    await store.createSession(workspace.id)
    setStarting(false)
  }

  return (
    <div className="transcript empty-state" data-testid="transcript-empty">
      <div className="start-here">
        {workspace ? (
          <>
            <h2 data-testid="start-workspace">Start in {workspace.name}</h2>
            <p className="start-path">
              <code data-testid="start-path">{workspace.path}</code>
            </p>
            <button
              type="button"
              className="button primary start-button"
              data-testid="start-session"
              disabled={!connected || starting}
              onClick={() => void start()}
            >
              {starting ? 'Starting…' : 'New session'}
            </button>
            <p>
              Or just type below: your first message starts a session here. Any completed turn can be
              branched: try approach B without losing approach A, then compare them.
            </p>
          </>
        ) : (
          <>
            <h2>Branch your conversations</h2>
            <p>
              Open a folder to work in: type its path on the left (<code>~</code> is your home folder) or
              browse to it. Any completed turn can be branched: try approach B without losing approach A, then
              compare them.
            </p>
            <button
              type="button"
              className="button primary start-button"
              data-testid="start-browse"
              disabled={!connected}
              onClick={() => store.openDialog({ kind: 'browse' })}
            >
              Browse for a folder…
            </button>
          </>
        )}
      </div>
    </div>
  )
}
