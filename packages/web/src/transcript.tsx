// The open session's conversation, windowed (docs/architecture.md §8): only the rows on
// screen (plus a margin) are in the DOM, each measured as it renders. Sticks to the bottom while
// a turn streams, unless the reader scrolled up; keeps the reader's place when older rows load
// above; brings a seq into view on request. With no session open: a one-click start in the
// selected workspace.

import { formatUsage, sessionModes } from '@tangent/protocol'
import { useVirtualizer } from '@tanstack/react-virtual'
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import { subjectOf } from './approval-card.js'
import { ContextRow } from './context-row.js'
import { ExplorationRow } from './exploration-rows.js'
import type { TranscriptState } from './host-state.js'
import { BranchIcon } from './icon.js'
import { RestoreRow } from './restore-row.js'
import { titleOf } from './session-display.js'
import {
  openTurn,
  pendingApprovals,
  type TranscriptBlock,
  TranscriptBuilder,
  type TurnModel,
} from './transcript-model.js'
import { TurnView } from './turn-view.js'
import { useHost, useStore } from './use-host.js'

/** A row of the window: a block, or the "earlier events" row above a log loaded tail first. */
type TranscriptRow = TranscriptBlock | { readonly kind: 'older'; readonly firstSeq: number }

/** Pixels from the top at which the next older page is asked for. */
const loadOlderWithinPx = 800
/** How close to the bottom still counts as "at the bottom" (sticks while a turn streams). */
const pinnedWithinPx = 40

export function Transcript() {
  const store = useStore()
  const transcript = useHost((state) => state.transcript)
  const session = useHost((state) =>
    state.openSessionId === null ? undefined : state.sessions.get(state.openSessionId),
  )
  const parent = useHost((state) =>
    session?.parentSession ? state.sessions.get(session.parentSession) : undefined,
  )
  const jump = useHost((state) => state.jump)
  const inherited = session?.inheritedEventCount ?? 0
  const { blocks, hasSnapshots } = useTranscriptBlocks(transcript, inherited)
  const running = openTurn(blocks)
  const waiting = pendingApprovals(running)[0]
  const firstSeq = transcript?.firstSeq ?? 0
  const rows = useMemo<readonly TranscriptRow[]>(
    () => (firstSeq > 0 ? [{ kind: 'older', firstSeq }, ...blocks] : blocks),
    [blocks, firstSeq],
  )

  const scroller = useRef<HTMLDivElement>(null)
  const pinned = useRef(true)
  const streaming = transcript?.streaming
  const usage = transcript?.usage
  // A string per turn, so a memoised turn re-renders only when its own figures change.
  const turnUsage = useMemo(() => new Map(usage?.turns.map((turn) => [turn.seq, formatUsage(turn)])), [usage])
  // Tool runs the reader opened; kept here, so a run scrolled out of the window and back stays open.
  const [openRuns, setOpenRuns] = useState<ReadonlySet<string>>(() => new Set())
  const toggleRun = useCallback((key: string) => {
    setOpenRuns((current) => {
      const next = new Set(current)
      if (!next.delete(key)) next.add(key)
      return next
    })
  }, [])
  const [target, setTarget] = useState<{ seq: number; index: number; nonce: number } | null>(null)
  // Another session: back to its end, no run open, no jump target (call ids repeat across sessions).
  const openSessionId = transcript?.sessionId
  const [shownSessionId, setShownSessionId] = useState(openSessionId)
  if (shownSessionId !== openSessionId) {
    setShownSessionId(openSessionId)
    setOpenRuns(new Set())
    setTarget(null)
    pinned.current = true
  }

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: (index) => estimatedHeight(rows[index]),
    getItemKey: (index) => rowKey(rows[index]!),
    overscan: 4,
    paddingStart: 20,
    paddingEnd: 28,
  })

  // Older rows came in above: keep the row that was at the top where it was on screen. First by
  // the virtualizer's offsets, then, while the rows around it are measured, by where it really is.
  const anchor = useRef<{ key: string; offset: number } | null>(null)
  const restoring = useRef<{ key: string; offset: number; until: number } | null>(null)
  const shownFirstSeq = useRef(firstSeq)
  useLayoutEffect(() => {
    const element = scroller.current
    if (!element) return
    if (firstSeq !== shownFirstSeq.current) {
      shownFirstSeq.current = firstSeq
      const before = anchor.current
      if (!before || pinned.current) return
      const index = rows.findIndex((row) => rowKey(row) === before.key)
      const start = index < 0 ? undefined : virtualizer.measurementsCache[index]?.start
      if (start === undefined) return
      element.scrollTop = start - before.offset
      restoring.current = { ...before, until: performance.now() + 1_000 }
      return
    }
    const restore = restoring.current
    if (restore && performance.now() > restore.until) restoring.current = null
    if (restore && restoring.current) {
      const row = element.querySelector<HTMLElement>(`[data-key="${CSS.escape(restore.key)}"]`)
      if (!row) return
      const drift = row.getBoundingClientRect().top - element.getBoundingClientRect().top - restore.offset
      if (Math.abs(drift) >= 1) element.scrollTop += drift
      return
    }
    // Reading the reader's place costs a layout: only while they read back (not pinned, not streaming to them).
    if (!pinned.current) anchor.current = topRowOf(element) ?? anchor.current
  })

  // Stick to the bottom while the reader is there (once per frame at most: the store batches).
  useLayoutEffect(() => {
    const element = scroller.current
    if (element && pinned.current && target === null) element.scrollTop = element.scrollHeight
  })

  // A jump (the tree's "from #N", compare, a link): the row that holds the seq, then the event in it.
  const handledJump = useRef(0)
  const loaded = transcript !== null && !transcript.loading
  useEffect(() => {
    if (!jump || !loaded || jump.sessionId !== transcript?.sessionId || handledJump.current === jump.nonce)
      return
    const index = rowIndexOfSeq(rows, jump.seq)
    if (index < 0) return
    handledJump.current = jump.nonce
    pinned.current = false
    // The jump moves the reader: no place to keep from before it.
    restoring.current = null
    setTarget({ seq: jump.seq, index, nonce: jump.nonce })
  }, [jump, loaded, rows, transcript])
  useEffect(() => {
    if (!target) return
    let frames = 0
    let handle = 0
    // Until the event is rendered, put its row at the top (its offset improves as rows around it
    // are measured); once it is, centre the event itself, then stop.
    const look = () => {
      const element = scroller.current?.querySelector(`[data-jump-target="${target.seq}"]`)
      if (element) {
        element.scrollIntoView({ block: 'center' })
        return
      }
      const start = virtualizer.measurementsCache[target.index]?.start
      if (scroller.current && start !== undefined) scroller.current.scrollTop = start
      if (frames++ < 30) handle = requestAnimationFrame(look)
    }
    handle = requestAnimationFrame(look)
    return () => cancelAnimationFrame(handle)
  }, [target, virtualizer])

  if (!transcript || !session) return <StartHere />

  const items = virtualizer.getVirtualItems()
  const activeSessionId = session.id
  const targetSeq = target?.seq ?? null

  function renderRow(row: TranscriptRow) {
    if (row.kind === 'older') {
      return (
        <div className="divider older-divider" data-testid="transcript-older">
          <button
            type="button"
            className="action subtle"
            data-testid="load-older"
            disabled={transcript?.loadingOlder === true}
            onClick={() => void store.loadOlder()}
          >
            {transcript?.loadingOlder
              ? 'Loading earlier events…'
              : `Show earlier events (before #${row.firstSeq})`}
          </button>
        </div>
      )
    }
    if (row.kind === 'fork-point') {
      return (
        <div className="divider fork-divider" data-testid="fork-divider">
          <span>
            <BranchIcon size={12} /> Forked from {parent ? titleOf(parent) : 'its parent'}
            {row.seq >= 0 ? ` after #${row.seq}` : ' at the start'} — above is shared history
          </span>
        </div>
      )
    }
    if (row.kind === 'restore') {
      return <RestoreRow sessionId={activeSessionId} restore={row} running={running !== null} />
    }
    if (row.kind === 'outside') {
      return (
        <div className="context-row" data-testid="files-outside" data-seq={row.seq}>
          Changed outside Tangent: {row.paths.join(', ')}
        </div>
      )
    }
    if (row.kind === 'instructions' || row.kind === 'compaction' || row.kind === 'compaction-failed') {
      return <ContextRow context={row} />
    }
    if (row.kind === 'exploration' || row.kind === 'kept' || row.kind === 'check') {
      return <ExplorationRow block={row} />
    }
    if (row.kind === 'mode') {
      const mode = sessionModes.find((candidate) => candidate.id === row.mode)
      return (
        <div className="divider" data-testid="mode-divider" title={mode?.description}>
          <span>mode {mode?.name ?? row.mode}</span>
        </div>
      )
    }
    if (row.kind === 'model') {
      return (
        <div className="divider">
          <span>model {row.model}</span>
        </div>
      )
    }
    const turn = row.turn
    return (
      <TurnView
        sessionId={activeSessionId}
        turn={turn}
        isRunning={turn === running}
        streaming={turn === running ? (streaming ?? null) : null}
        hasSnapshots={hasSnapshots}
        usageText={turn.end ? turnUsage.get(turn.startSeq) : undefined}
        openRuns={openRuns}
        onToggleRun={toggleRun}
        jumpSeq={targetSeq !== null && turnHolds(turn, targetSeq) ? targetSeq : null}
      />
    )
  }

  return (
    <div
      className="transcript"
      data-testid="transcript"
      data-session-id={transcript.sessionId}
      data-loading={transcript.loading}
      data-first-seq={transcript.firstSeq}
      ref={scroller}
      onScroll={(event) => {
        const element = event.currentTarget
        pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight < pinnedWithinPx
        if (pinned.current && target !== null) setTarget(null)
        // Remember the top row, to keep it in place if older rows come in above it.
        if (!pinned.current && restoring.current === null)
          anchor.current = topRowOf(element) ?? anchor.current
        if (element.scrollTop < loadOlderWithinPx && transcript.firstSeq > 0 && !transcript.loadingOlder) {
          void store.loadOlder()
        }
      }}
    >
      {/* Says "Approval needed" politely when a card appears (the card itself takes focus). */}
      <div className="visually-hidden" role="status" aria-live="polite" data-testid="approval-announcer">
        {waiting ? `Approval needed: ${waiting.toolName} ${subjectOf(waiting.input)}` : ''}
      </div>
      {transcript.loading ? <p className="muted center">Loading…</p> : null}
      {!transcript.loading && blocks.length === 0 ? (
        <p className="muted center" data-testid="transcript-start">
          Send a message to start.
        </p>
      ) : null}
      <div className="transcript-inner transcript-list" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((item) => (
          <div
            key={item.key}
            className="transcript-row"
            data-index={item.index}
            data-key={item.key}
            ref={virtualizer.measureElement}
            style={{ transform: `translateY(${item.start}px)` }}
          >
            {renderRow(rows[item.index]!)}
          </div>
        ))}
      </div>
    </div>
  )
}

/**
 * The blocks of the open log, built incrementally: while the window only grows at its end,
 * new events are fed to the same builder (earlier blocks keep their identity); a new session,
 * an older page or a different fork point builds anew.
 */
function useTranscriptBlocks(
  transcript: TranscriptState | null,
  inheritedEventCount: number,
): { blocks: readonly TranscriptBlock[]; hasSnapshots: boolean } {
  const fed = useRef<{ builder: TranscriptBuilder; sessionId: string; events: readonly unknown[] } | null>(
    null,
  )
  const events = transcript?.events
  const sessionId = transcript?.sessionId
  const firstSeq = transcript?.firstSeq ?? 0
  return useMemo(() => {
    if (!events || sessionId === undefined) return { blocks: [], hasSnapshots: false }
    let current = fed.current
    const continues =
      current !== null &&
      current.sessionId === sessionId &&
      current.builder.firstSeq === firstSeq &&
      current.builder.inheritedEventCount === inheritedEventCount &&
      current.builder.nextSeq <= firstSeq + events.length &&
      (current.events.length === 0 || events[current.events.length - 1] === current.events.at(-1))
    if (!continues || !current) {
      current = { builder: new TranscriptBuilder(inheritedEventCount, firstSeq), sessionId, events: [] }
      fed.current = current
    }
    current.builder.append(events.slice(current.builder.nextSeq - firstSeq))
    current.events = events
    return { blocks: current.builder.blocks(), hasSnapshots: current.builder.hasSnapshots }
  }, [events, sessionId, firstSeq, inheritedEventCount])
}

/** The first row on screen (not the "earlier events" row) and its distance from the top. */
function topRowOf(scroller: HTMLElement): { key: string; offset: number } | null {
  const view = scroller.getBoundingClientRect()
  for (const row of scroller.querySelectorAll<HTMLElement>('.transcript-row')) {
    const box = row.getBoundingClientRect()
    if (row.dataset.key === 'older' || box.bottom <= view.top || box.top >= view.bottom) continue
    return { key: row.dataset.key ?? '', offset: box.top - view.top }
  }
  return null
}

function rowKey(row: TranscriptRow): string {
  switch (row.kind) {
    case 'older':
      return 'older'
    case 'turn':
      return `turn:${row.turn.startSeq}`
    case 'fork-point':
      return `fork:${row.seq}`
    default:
      return `${row.kind}:${row.seq}`
  }
}

/** A first guess of a row's height before it is measured. */
function estimatedHeight(row: TranscriptRow | undefined): number {
  if (!row) return 0
  if (row.kind === 'turn') return 150 + Math.min(row.turn.items.length, 4) * 34
  return 44
}

function turnHolds(turn: TurnModel, seq: number): boolean {
  return seq >= turn.startSeq && (turn.end === null || seq <= turn.end.seq)
}

/** The row that shows `seq`: its turn, else the row of that seq, else the last row before it. */
function rowIndexOfSeq(rows: readonly TranscriptRow[], seq: number): number {
  let before = -1
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index]!
    if (row.kind === 'turn') {
      if (turnHolds(row.turn, seq)) return index
      if (row.turn.startSeq <= seq) before = index
    } else if (row.kind !== 'older') {
      if (row.seq === seq) return index
      if (row.seq <= seq) before = index
    }
  }
  return before
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
