// The screen of `tangent tui`, drawn with Ink from the store's state (tui-store.ts): the tree on
// the left, the transcript (only the rows that fit are rendered: a long session costs what the
// screen shows), an approval when a call waits, the composer and the status line. Keys are
// turned into the store's actions here; nothing else happens in this file.
import { formatContext, formatCost } from '@tangent/protocol'
import { Box, Text, useApp, useInput, useWindowSize } from 'ink'
import { useEffect, useMemo, useRef, useSyncExternalStore } from 'react'
import wrapAnsi from 'wrap-ansi'
import { alwaysScope, describeCall } from '../approvals.js'
import { clip, type Style, safeLine, titleOf } from '../render/style.js'
import { boardLines } from './board-lines.js'
import type { CodeHighlighter } from './code-highlight.js'
import { type TranscriptLine, transcriptLines } from './transcript-lines.js'
import { type TuiState, type TuiStore, tuiHelp, tuiSlashCommands } from './tui-store.js'

export function TuiApp({
  store,
  style,
  highlighter,
}: {
  store: TuiStore
  style: Style
  highlighter?: CodeHighlighter
}) {
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot)
  // Code blocks coloured since the last draw: the transcript is drawn again (those messages only
  // are rendered anew: the others come from the cache below).
  const coloured = useSyncExternalStore(
    highlighter?.subscribe ?? noSubscription,
    highlighter?.version ?? noVersion,
  )
  const { exit } = useApp()
  const { columns, rows } = useWindowSize()
  useEffect(() => {
    store.onQuit = () => exit()
  }, [store, exit])
  /** A key the board waits for after `k`: the branch's letter. */
  const keeping = useRef(false)

  useInput((input, key) => {
    if (key.ctrl && input === 'c') return store.interrupt()
    if (key.escape) return void store.stop()
    // One key answers while the composer is empty; with text in it, Enter denies with that reason.
    if (state.approval !== null && !key.ctrl && !key.meta) {
      if (state.draft === '') {
        const answer = input === 'y' ? 'once' : input === 'a' ? 'always' : input === 'n' ? 'deny' : null
        if (answer !== null) return void store.answer(answer)
      } else if (key.return) return void store.answer('deny', state.draft.trim())
    }
    if (state.board !== null && state.focus !== 'composer') {
      if (keeping.current) {
        keeping.current = false
        const index = input.toUpperCase().charCodeAt(0) - 65
        if (index >= 0 && index < 8) return void store.keepBranch(index)
      }
      if (input === 'k') {
        keeping.current = true
        return
      }
    }
    // Tabs that arrive together (a script's keys) move focus once each.
    if (key.tab || /^\t+$/.test(input)) {
      for (let i = 0; i < Math.max(1, input.length); i++) store.cycleFocus()
      return
    }
    if (state.focus === 'tree') {
      if (key.upArrow) return store.moveTree(-1)
      if (key.downArrow) return store.moveTree(1)
      if (key.return) return void store.openSelected()
      if (input === 'f') return void store.forkSelected()
      return
    }
    if (state.focus === 'transcript') {
      if (key.upArrow) return store.moveTurn(-1)
      if (key.downArrow) return store.moveTurn(1)
      if (key.pageUp) return store.scrollBy(Math.max(1, rows - 8))
      if (key.pageDown) return store.scrollBy(-Math.max(1, rows - 8))
      if (input === 'f') return void store.forkAtSelectedTurn()
      if (input === 'o') return store.toggleToolOutput()
      return
    }
    // The composer.
    if (key.pageUp) return store.scrollBy(Math.max(1, rows - 8))
    if (key.pageDown) return store.scrollBy(-Math.max(1, rows - 8))
    if (key.return && (key.meta || key.shift)) return store.setDraft(`${state.draft}\n`)
    if (key.return) return void store.submit()
    if (key.backspace || key.delete) return store.setDraft(Array.from(state.draft).slice(0, -1).join(''))
    // Ctrl-U clears the composer, Ctrl-W deletes the word before the cursor (as in a shell).
    if (key.ctrl && input === 'u') return store.setDraft('')
    if (key.ctrl && input === 'w') return store.setDraft(state.draft.replace(/\S*\s*$/, ''))
    if (key.ctrl || key.meta || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return
    if (input === '') return
    // Keys that arrive together (typed fast, or sent by a script) come as one string: a last
    // carriage return in it is Enter; inner ones are new lines (a paste).
    const enter = input.endsWith('\r')
    store.setDraft(state.draft + (enter ? input.slice(0, -1) : input).replace(/\r\n?/g, '\n'))
    if (enter) void store.submit()
  })

  const width = Math.max(20, columns)
  const treeWidth = width >= 70 ? Math.min(32, Math.floor(width * 0.3)) : 0
  const mainWidth = width - treeWidth - (treeWidth > 0 ? 1 : 0)
  const composer = composerLines(state.draft, width - 2)
  const approval = state.approval === null ? [] : approvalLines(state, style, width - 4)
  const palette = slashPalette(state.draft, style, width)
  const fixed =
    composer.length +
    palette.length +
    2 /* status and notice */ +
    (approval.length > 0 ? approval.length + 2 : 0)
  const mainHeight = Math.max(3, rows - fixed)

  // Each assistant message's Markdown is rendered once per open session (a log never changes).
  const cacheOf = useRef<{ id: string | null; map: Map<number, string[]> }>({ id: null, map: new Map() })
  const openId = state.open?.session.id ?? null
  if (cacheOf.current.id !== openId) cacheOf.current = { id: openId, map: new Map() }
  const cache = cacheOf.current.map
  // `coloured` is what changes when blocks the last render drew plain have their colours.
  // biome-ignore lint/correctness/useExhaustiveDependencies: see above
  const lines = useMemo(
    () =>
      state.open
        ? transcriptLines(state.open.events, style, state.live, cache, state.expandTools, highlighter)
        : [],
    [state.open, state.live, style, cache, state.expandTools, highlighter, coloured],
  )

  // What the panes show depends on a few parts of the state only: typing in the composer redraws
  // neither the tree nor the transcript, so keys echo at once while a turn streams.
  const { open, scroll, focus, selectedTurn, help, board, folder, rows: treeRowsShown, treeIndex } = state
  const main = useMemo(() => {
    if (help)
      return {
        text: tuiHelp.map((line) => wrapAnsi(line, mainWidth, { hard: true })).join('\n'),
        atTop: false,
      }
    if (board !== null) {
      const text = boardLines(board.result, style)
        .map((line) => wrapAnsi(line, mainWidth, { hard: true }))
        .join('\n')
      return { text, atTop: false }
    }
    let atTop = false
    const view = { open, scroll, focus, selectedTurn, folder }
    const text = transcriptWindow(view, lines, style, mainWidth, mainHeight, (top) => {
      atTop = top
    })
    return { text, atTop }
  }, [open, scroll, focus, selectedTurn, help, board, folder, lines, style, mainWidth, mainHeight])
  useEffect(() => {
    if (main.atTop) void store.loadEarlier()
  }, [main, store])
  const tree = useMemo(
    () =>
      treeWidth > 0
        ? treePaneText({ rows: treeRowsShown, treeIndex, focus, open, folder }, style, treeWidth, mainHeight)
        : '',
    [treeRowsShown, treeIndex, focus, open, folder, style, treeWidth, mainHeight],
  )

  return (
    <Box flexDirection="column" width={width} height={rows}>
      <Box flexDirection="row" height={mainHeight}>
        {treeWidth > 0 ? (
          <Box flexDirection="column" width={treeWidth} height={mainHeight}>
            <Text>{tree}</Text>
          </Box>
        ) : null}
        {treeWidth > 0 ? <Text>{style.dim('│\n'.repeat(mainHeight).slice(0, -1))}</Text> : null}
        <Box flexDirection="column" width={mainWidth} height={mainHeight}>
          <Text>{main.text}</Text>
        </Box>
      </Box>
      {approval.length > 0 ? (
        <Box borderStyle="round" flexDirection="column" width={width}>
          <Text>{approval.join('\n')}</Text>
        </Box>
      ) : null}
      {palette.length > 0 ? <Text>{palette.join('\n')}</Text> : null}
      <Text>{composer.join('\n')}</Text>
      <Text wrap="truncate-end">{state.notice ? noticeText(state, style) : ' '}</Text>
      <Text wrap="truncate-end">{statusLine(state, style, store.busy())}</Text>
    </Box>
  )
}

const noSubscription = () => () => {}
const noVersion = () => 0

function treePaneText(
  state: Pick<TuiState, 'rows' | 'treeIndex' | 'focus' | 'open' | 'folder'>,
  style: Style,
  width: number,
  height: number,
): string {
  const focused = state.focus === 'tree'
  const header = `${style.bold(focused ? '▸ sessions' : '  sessions')} ${style.dim(clip(safeLine(state.folder.split('/').at(-1) ?? ''), width - 12))}`
  const room = height - 1
  const start = Math.max(0, Math.min(state.treeIndex - Math.floor(room / 2), state.rows.length - room))
  const shown = state.rows.slice(start, start + room).map((row, offset) => {
    const index = start + offset
    const indent = '  '.repeat(row.depth)
    const mark = row.kind === 'exploration' ? '⋔ ' : row.depth > 0 ? '└ ' : ''
    const running = row.running ? '● ' : ''
    // The label is cut, not the indent (clip collapses the spaces it starts with).
    const lead = `${indent}${mark}${running}`
    const text = `${lead}${clip(row.label, Math.max(4, width - 1 - lead.length))}`
    const isOpen = row.kind === 'session' && state.open?.session.id === row.sessionId
    const selected = index === state.treeIndex
    if (selected && focused) return style.inverse(text.padEnd(width - 1))
    if (isOpen) return style.bold(style.cyan(text))
    return row.kind === 'exploration' ? style.magenta(text) : text
  })
  if (state.rows.length === 0) shown.push(style.dim('(no sessions yet)'))
  return [header, ...shown].join('\n')
}

/**
 * The rows of the transcript that fit, wrapped to the pane: from the bottom up, `scroll` rows
 * above the end. Only these go to Ink, whatever the length of the session.
 */
function transcriptWindow(
  state: Pick<TuiState, 'open' | 'scroll' | 'focus' | 'selectedTurn' | 'folder'>,
  lines: readonly TranscriptLine[],
  style: Style,
  width: number,
  height: number,
  onTop: (atTop: boolean) => void,
): string {
  const open = state.open
  const header = open
    ? `${style.bold(clip(safeLine(titleOf(open.session)), width - 30))} ${style.dim(open.session.id)}${state.focus === 'transcript' ? style.dim(' · ↑↓ turn · f fork · o output') : ''}`
    : style.dim(
        `New session in ${safeLine(state.folder)}: type a message and press Enter (/help for commands).`,
      )
  const room = height - 1
  const rowsOut: string[] = []
  // Wrapped from the last line up, only until the window (and its scroll) is full.
  for (let i = lines.length - 1; i >= 0 && rowsOut.length < room + state.scroll; i--) {
    const line = lines[i]!
    const selected =
      state.focus === 'transcript' && line.turnEndSeq !== undefined && line.turnEndSeq === state.selectedTurn
    const text = selected ? style.inverse(`${line.text} ← fork here (f)`) : line.text
    const wrapped = text === '' ? [''] : wrapAnsi(text, width, { hard: true, trim: false }).split('\n')
    for (let j = wrapped.length - 1; j >= 0; j--) rowsOut.push(wrapped[j]!)
  }
  const scroll = Math.min(state.scroll, Math.max(0, rowsOut.length - room))
  const visible = rowsOut.slice(scroll, scroll + room).reverse()
  // Scrolled to the first loaded line of a log that goes further back: the store loads the page before.
  onTop(state.scroll > 0 && rowsOut.length < room + state.scroll)
  const hidden =
    open !== null && open.events.length > 0 && open.events[0]!.seq > 0
      ? style.dim(` · from seq ${open.events[0]!.seq}`)
      : ''
  return [header + hidden, ...visible].join('\n')
}

function approvalLines(state: TuiState, style: Style, width: number): string[] {
  const request = state.approval!.request
  return [
    style.yellow(style.bold(`Allow ${clip(describeCall(request), width - 6)}?`)),
    style.dim(`[a] always = allow ${clip(alwaysScope(request), width - 40)} for the rest of this session`),
    `${style.bold('y')} once · ${style.bold('a')} always · ${style.bold('n')} deny · or type a reason and Enter to deny with it`,
  ]
}

/** While a slash command's name is typed: the commands that start with it, one line each. */
function slashPalette(draft: string, style: Style, width: number): string[] {
  if (!draft.startsWith('/') || /\s/.test(draft)) return []
  const typed = draft.slice(1).toLowerCase()
  return tuiSlashCommands
    .filter((command) => command.usage.slice(1).startsWith(typed))
    .slice(0, 8)
    .map(
      (command) =>
        `${style.cyan(command.usage.padEnd(24))} ${style.dim(clip(command.help, Math.max(10, width - 26)))}`,
    )
}

function composerLines(draft: string, width: number): string[] {
  const lines = draft.split('\n')
  return lines.flatMap((line, index) => {
    const prefix = index === 0 ? '› ' : '  '
    const cursor = index === lines.length - 1 ? '▏' : ''
    return wrapAnsi(`${prefix}${safeLine(line)}${cursor}`, width + 2, { hard: true }).split('\n')
  })
}

function noticeText(state: TuiState, style: Style): string {
  const notice = state.notice!
  return notice.kind === 'error' ? style.red(notice.text) : style.dim(notice.text)
}

/** What is going on · the focus · model · context meter · cost · sandbox (what matters most first: 80 columns cut the end). */
function statusLine(state: TuiState, style: Style, busy: boolean): string {
  const open = state.open
  const model = open?.session.model
    ? `${open.session.model.provider}:${open.session.model.model}`
    : (state.defaultModel ?? '?')
  const parts = [safeLine(model)]
  const usage = open?.usage
  if (usage) {
    const context =
      usage.context.used === null ? '?' : formatContext(usage.context).replace(/ \(window.*$/, '')
    parts.push(`ctx ${meter(usage.context.percent)} ${context}`)
    parts.push(formatCost(usage.total.cost))
  }
  parts.push(`sandbox ${state.sandbox === 'sandboxed' ? 'on' : state.sandbox === null ? '?' : 'off'}`)
  const activity = state.approval
    ? style.yellow('needs approval')
    : busy
      ? style.yellow('busy · Esc stops')
      : style.green('ready')
  return `${activity} ${style.dim(`[${state.focus}] Tab`)} · ${style.dim(parts.join(' · '))}`
}

/** A ten-cell meter of the context window's use. */
function meter(percent: number | null): string {
  if (percent === null) return '[··········]'
  const filled = Math.max(0, Math.min(10, Math.round(percent / 10)))
  return `[${'█'.repeat(filled)}${'·'.repeat(10 - filled)}]`
}
