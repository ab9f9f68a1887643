// The open session's conversation. Sticks to the bottom while text streams, unless the
// reader scrolled up; the streaming block keeps its place so nothing jumps.

import { useLayoutEffect, useMemo, useRef } from 'react'
import { BranchIcon } from './icon.js'
import { titleOf } from './session-tree.js'
import { buildTranscript, openTurn } from './transcript-model.js'
import { TurnView } from './turn-view.js'
import { useHost } from './use-host.js'

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
  const hasSnapshots = useMemo(
    () => (events ?? []).some((event) => event.type === 'snapshot/taken'),
    [events],
  )

  const scroller = useRef<HTMLDivElement>(null)
  const pinned = useRef(true)
  const streaming = transcript?.streaming
  useLayoutEffect(() => {
    const element = scroller.current
    if (element && pinned.current && (events || streaming)) element.scrollTop = element.scrollHeight
  }, [events, streaming])

  if (!transcript || !session) {
    return (
      <div className="transcript empty-state" data-testid="transcript-empty">
        <div>
          <h2>Branch your conversations</h2>
          <p>
            Open a folder on the left and start a session. Any completed turn can be branched: try approach B
            without losing approach A, then compare them.
          </p>
        </div>
      </div>
    )
  }

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
            />
          )
        })}
      </div>
    </div>
  )
}
