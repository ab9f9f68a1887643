// The state of `tangent tui` and what its keys do, over the CLI's one Backend (the runtime in
// this process or a running Host): it holds what the screen shows — the folder's sessions, the
// open session's window of the log and its live text, a pending approval, the composer — and
// every action is one of the runtime's operations. The Ink components (app.tsx) only draw it.
import type { PermissionRequestedData } from '@tangent/core'
import type {
  Backend,
  BoardResult,
  SessionEvent,
  SessionSummary,
  SessionUsage,
  TurnDelta,
} from '../backend.js'
import { parseSlashCommand } from '../chat-slash.js'
import { describeFailure, formatFailure } from '../cli-error.js'
import { titleFrom } from '../commands/run.js'
import { userText } from '../render/event-text.js'
import { type Style, safeLine } from '../render/style.js'
import { isSessionCommand, runSessionCommand } from '../session-commands.js'
import type { LiveText } from './transcript-lines.js'
import { type TreeRow, treeRows } from './tree-rows.js'

export type Focus = 'composer' | 'tree' | 'transcript'

export interface OpenSession {
  session: SessionSummary
  /** A window of the log: its last events (a 10,000-event session opens with its tail). */
  events: SessionEvent[]
  usage: SessionUsage | undefined
}

export interface PendingApproval {
  sessionId: string
  request: PermissionRequestedData
}

export interface Notice {
  text: string
  kind: 'info' | 'error'
}

export interface TuiState {
  folder: string
  rows: TreeRow[]
  treeIndex: number
  focus: Focus
  open: OpenSession | null
  live: LiveText | null
  approval: PendingApproval | null
  /** A prompt of ours is on its way (its turn may not have started yet). */
  sending: boolean
  notice: Notice | null
  draft: string
  /** Ctrl-C was pressed once: a second press quits. */
  quitArmed: boolean
  /** In the transcript: the turn selected (its `turn/end` seq), null: none yet. */
  selectedTurn: number | null
  /** Lines scrolled up from the bottom of the transcript. */
  scroll: number
  /** `host.info`: the bash sandbox and the default model. */
  sandbox: string | null
  defaultModel: string | null
  /** The exploration board on screen (`/board` or Enter on an exploration row). */
  board: { parentId: string; branches: string[]; result: BoardResult | null } | null
  /** The slash commands' help on screen. */
  help: boolean
  /** Tool runs unfolded to their output (`o` in the transcript). */
  expandTools: boolean
}

/** How many events a session opens with: its tail (older ones are not needed to read it). */
export const openWindowEvents = 400

/** The slash commands, as `/` lists them while one is typed (matching what is typed so far). */
export const tuiSlashCommands: readonly { usage: string; help: string }[] = [
  { usage: '/fork [seq]', help: 'branch after the turn holding seq (default: the last) and open it' },
  { usage: '/branch [seq]', help: "edit that turn's message in a new branch before it" },
  { usage: '/tree', help: 'move to the session tree' },
  { usage: '/explore P1 | P2', help: 'try several ways from here, one branch each; shows the board' },
  { usage: '/board', help: "this session's exploration board" },
  { usage: '/compare ID', help: 'what differs between this session and ID' },
  { usage: '/keep ID', help: 'keep a branch: its files into its parent, the others archived' },
  { usage: '/restore SEQ', help: 'rewind the files this session changed after SEQ' },
  { usage: '/undo [SEQ]', help: 'undo the latest restore (or keep)' },
  { usage: '/model M', help: 'use model M (provider:model) from the next turn' },
  { usage: '/mode MODE', help: 'ask, edit or plan' },
  { usage: '/compact', help: 'summarise the history so far' },
  { usage: '/export [md|html|jsonl]', help: 'write this session to a file in the folder' },
  { usage: '/switch ID', help: 'open another session' },
  { usage: '/new', help: 'a new session in this folder' },
  { usage: '/help', help: 'the keys and commands' },
  { usage: '/quit', help: 'leave' },
]

export const tuiHelp = [
  'Enter send · Alt-Enter new line · Tab tree/transcript/composer · Esc stop the turn · Ctrl-C twice quit',
  'tree: ↑↓ move · Enter open · f fork its last turn   transcript: ↑↓ turn · f fork there · o tool output · PgUp/PgDn scroll',
  'approvals: y once · a always (its scope is shown) · n deny',
  '/fork [seq]  /branch [seq]  /tree  /explore P1 | P2  /board  /compare ID  /keep ID  /restore SEQ  /undo [SEQ]',
  '/model M  /compact  /export [md|html|jsonl]  /new  /help  /quit',
]

export class TuiStore {
  readonly #backend: Backend
  readonly #style: Style
  #state: TuiState
  readonly #listeners = new Set<() => void>()
  #sessions: SessionSummary[] = []
  #unwatch: (() => Promise<void>) | null = null
  #offChanges: (() => void) | null = null
  #refreshTimer: NodeJS.Timeout | null = null
  #quitTimer: NodeJS.Timeout | null = null
  #boardTimer: NodeJS.Timeout | null = null
  /** Set by the app: leaves the UI (the terminal is restored by Ink). */
  onQuit: () => void = () => {}
  /** Writes a file for /export (the folder is the session's); injected for tests. */
  readonly #writeFile: (path: string, text: string) => void
  readonly #windowEvents: number

  constructor(
    backend: Backend,
    style: Style,
    folder: string,
    options: { writeFile?: (path: string, text: string) => void; windowEvents?: number } = {},
  ) {
    this.#backend = backend
    this.#windowEvents = options.windowEvents ?? openWindowEvents
    this.#style = style
    this.#writeFile =
      options.writeFile ?? ((file, text) => process.getBuiltinModule('node:fs').writeFileSync(file, text))
    this.#state = {
      folder,
      rows: [],
      treeIndex: 0,
      focus: 'composer',
      open: null,
      live: null,
      approval: null,
      sending: false,
      notice: null,
      draft: '',
      quitArmed: false,
      selectedTurn: null,
      scroll: 0,
      sandbox: null,
      defaultModel: null,
      board: null,
      help: false,
      expandTools: false,
    }
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  readonly getSnapshot = (): TuiState => this.#state

  #set(patch: Partial<TuiState>): void {
    this.#state = { ...this.#state, ...patch }
    for (const listener of this.#listeners) listener()
  }

  /** Loads the tree and opens `sessionId` (or nothing), then follows changes from every client. */
  async start(sessionId: string | null): Promise<void> {
    this.#offChanges = this.#backend.onSessionsChanged(() => this.#refreshSoon())
    // host.info (it looks for the bash sandbox) fills the status line when it comes: the screen
    // does not wait for it.
    void this.#backend
      .info()
      .then((info) =>
        this.#set({ sandbox: info.sandbox ? info.sandbox.bash : null, defaultModel: info.defaultModel }),
      )
      .catch((error: unknown) => this.#fail(error))
    await this.#refreshList()
    if (sessionId !== null) await this.open(sessionId)
  }

  async close(): Promise<void> {
    // Leaving stops the turn this screen started (as chat's Ctrl-C does): the process would
    // otherwise wait for it to end before it lets the data dir go.
    const open = this.#state.open
    if (this.#state.sending && open !== null) await this.#backend.abort(open.session.id)
    this.#offChanges?.()
    for (const timer of [this.#refreshTimer, this.#quitTimer, this.#boardTimer])
      if (timer) clearTimeout(timer)
    await this.#unwatch?.()
    this.#unwatch = null
  }

  #refreshSoon(): void {
    if (this.#refreshTimer !== null) return
    this.#refreshTimer = setTimeout(() => {
      this.#refreshTimer = null
      void this.#refreshList().catch((error: unknown) => this.#fail(error))
    }, 50)
  }

  async #refreshList(): Promise<void> {
    this.#sessions = await this.#backend.listSessions({ includeArchived: false })
    const rows = treeRows(this.#sessions, this.#state.folder)
    const open = this.#state.open
    const summary = open && this.#sessions.find((session) => session.id === open.session.id)
    const selected = this.#state.rows[this.#state.treeIndex]
    const keep = selected
      ? rows.findIndex((row) => row.sessionId === selected.sessionId && row.kind === selected.kind)
      : -1
    this.#set({
      rows,
      treeIndex: keep >= 0 ? keep : Math.min(this.#state.treeIndex, Math.max(0, rows.length - 1)),
      ...(open && summary ? { open: { ...open, session: summary } } : {}),
    })
    if (this.#state.board) void this.#refreshBoard()
  }

  /** Opens a session: the tail of its log, then every later event and delta as it comes. */
  async open(sessionId: string): Promise<void> {
    await this.#unwatch?.()
    this.#unwatch = null
    const known = this.#sessions.find((session) => session.id === sessionId)
    // The tail only: a 10,000-event session opens as fast as a short one.
    const from = known ? Math.max(0, known.eventCount - this.#windowEvents) : 0
    const { session, events, usage } = await this.#backend.getSession(sessionId, from)
    const index = this.#state.rows.findIndex((row) => row.sessionId === sessionId && row.kind === 'session')
    this.#set({
      open: { session, events, usage },
      live: null,
      approval: pendingApproval(sessionId, events),
      selectedTurn: null,
      scroll: 0,
      board: null,
      ...(index >= 0 ? { treeIndex: index } : {}),
    })
    const next = (events.at(-1)?.seq ?? from - 1) + 1
    this.#unwatch = await this.#backend.watch(sessionId, next, {
      onEvent: (event) => this.#onEvent(sessionId, event),
      onDelta: (delta) => this.#onDelta(sessionId, delta),
    })
  }

  #loadingEarlier = false

  /** Scrolled past the first loaded event: the page of the log before it (once at a time). */
  async loadEarlier(): Promise<void> {
    const open = this.#state.open
    const first = open?.events[0]?.seq ?? 0
    if (open === null || first === 0 || this.#loadingEarlier) return
    this.#loadingEarlier = true
    try {
      const { events } = await this.#backend.getSession(
        open.session.id,
        Math.max(0, first - this.#windowEvents),
      )
      const current = this.#state.open
      if (current?.session.id !== open.session.id) return
      const before = events.filter((event) => event.seq < first)
      this.#set({ open: { ...current, events: [...before, ...current.events] } })
    } catch (error) {
      this.#fail(error)
    } finally {
      this.#loadingEarlier = false
    }
  }

  #onEvent(sessionId: string, event: SessionEvent): void {
    const open = this.#state.open
    if (open === null || open.session.id !== sessionId) return
    if (open.events.length > 0 && event.seq <= open.events.at(-1)!.seq) return
    const events = [...open.events, event]
    const patch: Partial<TuiState> = { open: { ...open, events } }
    if (event.type === 'assistant/message' || event.type === 'turn/end' || event.type === 'turn/start')
      patch.live = null
    if (event.type === 'permission/requested')
      patch.approval = { sessionId, request: event.data as PermissionRequestedData }
    if (event.type === 'permission/answered' || event.type === 'turn/end') {
      const callId = (event.data as { callId?: string }).callId
      if (event.type === 'turn/end' || this.#state.approval?.request.callId === callId) patch.approval = null
    }
    this.#set(patch)
    if (event.type === 'turn/end' || event.type === 'step/end') void this.#refreshUsage(sessionId)
  }

  #onDelta(sessionId: string, delta: TurnDelta): void {
    if (this.#state.open?.session.id !== sessionId) return
    if (delta.kind !== 'text' && delta.kind !== 'reasoning') return
    const live = this.#state.live ?? { text: '', reasoning: '' }
    this.#set({
      live:
        delta.kind === 'text'
          ? { ...live, text: live.text + delta.text }
          : { ...live, reasoning: live.reasoning + delta.text },
    })
  }

  async #refreshUsage(sessionId: string): Promise<void> {
    try {
      const { session, usage } = await this.#backend.getSession(sessionId, Number.MAX_SAFE_INTEGER)
      const open = this.#state.open
      if (open?.session.id === sessionId) this.#set({ open: { ...open, session, usage } })
    } catch (error) {
      this.#fail(error)
    }
  }

  // ── keys ──────────────────────────────────────────────────────────────────────────────

  setDraft(draft: string): void {
    this.#set({
      draft,
      help: draft.startsWith('/') && this.#state.help ? true : this.#state.help && draft === '',
    })
  }

  cycleFocus(): void {
    const order: Focus[] = ['composer', 'tree', 'transcript']
    const next = order[(order.indexOf(this.#state.focus) + 1) % order.length]!
    this.#set({
      focus: next,
      selectedTurn: next === 'transcript' ? this.#lastTurnEnd() : this.#state.selectedTurn,
    })
  }

  moveTree(by: number): void {
    const count = this.#state.rows.length
    if (count === 0) return
    this.#set({ treeIndex: Math.max(0, Math.min(count - 1, this.#state.treeIndex + by)) })
  }

  /** Enter on the tree: opens the session, or an exploration's board. */
  async openSelected(): Promise<void> {
    const row = this.#state.rows[this.#state.treeIndex]
    if (!row) return
    await this.#guard(async () => {
      if (row.kind === 'exploration' && row.exploration) {
        this.#set({
          board: { parentId: row.sessionId, branches: row.exploration.branches, result: null },
          focus: 'transcript',
        })
        await this.#refreshBoard()
      } else {
        await this.open(row.sessionId)
        this.#set({ focus: 'composer' })
      }
    })
  }

  /** `f` in the tree: forks the selected session at its last completed turn, and opens the fork. */
  async forkSelected(): Promise<void> {
    const row = this.#state.rows[this.#state.treeIndex]
    if (row?.kind !== 'session') return
    await this.#fork(row.sessionId, undefined)
  }

  /** Up/down in the transcript: the turn before or after the selected one. */
  moveTurn(by: number): void {
    const ends = this.#turnEnds()
    if (ends.length === 0) return
    const at = this.#state.selectedTurn === null ? ends.length : ends.indexOf(this.#state.selectedTurn)
    const index = Math.max(0, Math.min(ends.length - 1, (at < 0 ? ends.length : at) + by))
    this.#set({ selectedTurn: ends[index]! })
  }

  /** `f` in the transcript: forks at the selected turn. */
  async forkAtSelectedTurn(): Promise<void> {
    const open = this.#state.open
    if (open === null) return
    await this.#fork(open.session.id, this.#state.selectedTurn ?? undefined)
  }

  /** `o` in the transcript: every tool run's output shown, or folded again to one line. */
  toggleToolOutput(): void {
    this.#set({ expandTools: !this.#state.expandTools })
  }

  scrollBy(lines: number): void {
    this.#set({ scroll: Math.max(0, this.#state.scroll + lines) })
  }

  #turnEnds(): number[] {
    return (this.#state.open?.events ?? [])
      .filter((event) => event.type === 'turn/end')
      .map((event) => event.seq)
  }

  #lastTurnEnd(): number | null {
    return this.#turnEnds().at(-1) ?? null
  }

  /** Esc: stops the open session's running turn (whoever started it). */
  async stop(): Promise<void> {
    const open = this.#state.open
    if (this.#state.board) {
      this.#set({ board: null })
      return
    }
    if (this.#state.help) {
      this.#set({ help: false })
      return
    }
    if (open === null || !this.busy()) return
    await this.#guard(async () => {
      const aborted = await this.#backend.abort(open.session.id)
      this.#notice(aborted ? 'Stopping the turn…' : 'No turn is running.', 'info')
    })
  }

  busy(): boolean {
    return (
      this.#state.sending ||
      this.#state.open?.session.status === 'running' ||
      turnRunning(this.#state.open?.events ?? [])
    )
  }

  /** y / a / n while a call waits: the answer goes to the runtime, which runs or denies the call. */
  async answer(decision: 'once' | 'always' | 'deny', reason?: string): Promise<void> {
    const approval = this.#state.approval
    if (approval === null) return
    this.#set({ approval: null, ...(reason !== undefined ? { draft: '' } : {}) })
    await this.#guard(() =>
      this.#backend.answerPermission(approval.sessionId, approval.request.callId, {
        decision,
        by: 'user',
        ...(reason ? { reason } : {}),
      }),
    )
  }

  /** Ctrl-C: the first press arms, the second (within 2 s) quits. */
  interrupt(): void {
    if (this.#state.quitArmed) {
      this.onQuit()
      return
    }
    this.#notice('Press Ctrl-C again to quit (Esc stops a running turn).', 'info')
    this.#set({ quitArmed: true })
    this.#quitTimer = setTimeout(() => this.#set({ quitArmed: false }), 2000)
  }

  /** Enter in the composer: a slash command, or a message to the open session (a new one if none). */
  async submit(): Promise<void> {
    const text = this.#state.draft.trim()
    if (text === '') return
    this.#set({ draft: '' })
    if (text.startsWith('/')) {
      await this.#guard(() => this.#slash(text))
      return
    }
    if (this.busy()) {
      this.#notice('A turn is running: wait for it, or press Esc to stop it.', 'error')
      this.#set({ draft: text })
      return
    }
    await this.#guard(async () => {
      let open = this.#state.open
      if (open === null) {
        const created = await this.#backend.createSession({ cwd: this.#state.folder, title: titleFrom(text) })
        await this.#refreshList()
        await this.open(created.id)
        open = this.#state.open!
      }
      this.#set({ sending: true, scroll: 0 })
      const sessionId = open.session.id
      // The turn's events reach the screen through the session's subscription (`open`).
      const prompt = this.#backend.prompt(sessionId, text, { onEvent: () => {}, onDelta: () => {} })
      void prompt.catch((error: unknown) => this.#fail(error)).finally(() => this.#set({ sending: false }))
    })
  }

  async #slash(line: string): Promise<void> {
    const [name = '', ...args] = line.slice(1).trim().split(/\s+/)
    const open = this.#state.open
    switch (name) {
      case 'help':
        this.#set({ help: true })
        return
      case 'quit':
      case 'exit':
        this.onQuit()
        return
      case 'new':
        await this.#unwatch?.()
        this.#unwatch = null
        this.#set({ open: null, live: null, approval: null, focus: 'composer' })
        this.#notice(`New session in ${safeLine(this.#state.folder)}: type its first message.`, 'info')
        return
      case 'tree':
        this.#set({ focus: 'tree' })
        return
      case 'board': {
        const parentId =
          open?.session.parentSession && open.session.exploration
            ? open.session.parentSession
            : open?.session.id
        const row = this.#state.rows.find(
          (candidate) => candidate.kind === 'exploration' && candidate.sessionId === parentId,
        )
        if (!row?.exploration) {
          this.#notice('No exploration from this session: start one with /explore P1 | P2.', 'error')
          return
        }
        this.#set({
          board: { parentId: row.sessionId, branches: row.exploration.branches, result: null },
          focus: 'transcript',
        })
        await this.#refreshBoard()
        return
      }
      case 'export':
        await this.#export(args[0] ?? 'md')
        return
      case 'branch':
        await this.#branch(args[0])
        return
      case 'switch':
        await this.open(await this.#backend.resolveSession(args[0] ?? ''))
        return
    }
    const command = parseSlashCommand(line)
    if ('error' in command) {
      this.#notice(command.error, 'error')
      return
    }
    // A fork opens at once, as from the tree (its own words: no "open it to go on").
    if (command.name === 'fork' && open !== null) {
      await this.#fork(open.session.id, command.seq)
      return
    }
    if (isSessionCommand(command)) {
      const result = await runSessionCommand(this.#backend, open?.session.id ?? null, command, {
        style: this.#style,
        frontEnd: 'editor',
      })
      this.#notice(
        result.text.split('\n').slice(0, 3).join(' · '),
        result.outcome === 'done' ? 'info' : 'error',
      )
      await this.#refreshList()
      if (result.switchTo !== undefined) await this.open(result.switchTo)
      if (command.name === 'explore' && result.branches && open) {
        this.#set({
          board: {
            parentId: open.session.id,
            branches: result.branches.map((branch) => branch.sessionId),
            result: null,
          },
          focus: 'transcript',
        })
        await this.#refreshBoard()
      }
      if (command.name === 'keep') this.#set({ board: null })
      return
    }
    switch (command.name) {
      case 'model':
        if (open === null) {
          this.#notice('Send a message first: the model is set on the session it makes.', 'error')
          return
        }
        await this.#backend.setModel(open.session.id, command.model)
        await this.#refreshUsage(open.session.id)
        this.#notice(`Model: ${safeLine(command.model)} from the next turn.`, 'info')
        return
      case 'mode':
        if (open === null || command.mode === undefined) {
          this.#notice('usage: /mode ask|edit|plan (in an open session)', 'error')
          return
        }
        await this.#backend.setMode(open.session.id, command.mode)
        this.#notice(`Mode: ${command.mode}`, 'info')
        return
      default:
        this.#notice(`/${command.name} is a \`tangent chat\` command; /help lists this screen's.`, 'error')
    }
  }

  async #fork(sessionId: string, atSeq: number | undefined): Promise<void> {
    await this.#guard(async () => {
      const { session, boundary } = await this.#backend.fork({ sessionId, atSeq })
      await this.#refreshList()
      await this.open(session.id)
      this.#set({ focus: 'composer' })
      this.#notice(`Forked through seq ${boundary}: now in ${session.id} ${safeLine(session.title)}`, 'info')
    })
  }

  /**
   * /branch [seq]: a new branch just before the turn that holds `seq` (default the selected or
   * last turn), its message put back in the composer to edit and send there.
   */
  async #branch(seqText: string | undefined): Promise<void> {
    const open = this.#state.open
    if (open === null) {
      this.#notice('Nothing to branch yet: send a message first.', 'error')
      return
    }
    const seq = seqText !== undefined ? Number(seqText) : (this.#state.selectedTurn ?? this.#lastTurnEnd())
    if (seq === null || !Number.isInteger(seq) || seq < 0) {
      this.#notice('usage: /branch [SEQ] (a seq inside the turn whose message to edit)', 'error')
      return
    }
    const events = open.events
    const end = events.findIndex((event) => event.seq >= seq && event.type === 'turn/end')
    const upTo = end < 0 ? events.length : end
    const message = events
      .slice(0, upTo + 1)
      .findLast(
        (event) => event.type === 'user/message' && event.seq <= Math.max(seq, events[upTo]?.seq ?? seq),
      )
    const { session } = await this.#backend.fork({ sessionId: open.session.id, atSeq: seq, before: true })
    await this.#refreshList()
    await this.open(session.id)
    this.#set({ focus: 'composer', draft: message ? userText(message.data) : '' })
    this.#notice(`Branched before that turn into ${session.id}: edit the message and press Enter.`, 'info')
  }

  async #export(format: string): Promise<void> {
    const open = this.#state.open
    if (open === null) {
      this.#notice('Nothing to export yet.', 'error')
      return
    }
    const formats: Record<string, { format: 'md' | 'html' | 'jsonl'; ext: string }> = {
      md: { format: 'md', ext: 'md' },
      markdown: { format: 'md', ext: 'md' },
      html: { format: 'html', ext: 'html' },
      jsonl: { format: 'jsonl', ext: 'jsonl' },
    }
    const chosen = formats[format]
    if (!chosen) {
      this.#notice('usage: /export [md|html|jsonl]', 'error')
      return
    }
    let text = ''
    for await (const page of this.#backend.exportSession(open.session.id, chosen.format)) text += page.content
    const file = process
      .getBuiltinModule('node:path')
      .join(this.#state.folder, `tangent-${open.session.id}.${chosen.ext}`)
    this.#writeFile(file, text)
    this.#notice(`Exported to ${safeLine(file)}`, 'info')
  }

  async #refreshBoard(): Promise<void> {
    const board = this.#state.board
    if (board === null) return
    try {
      const result = await this.#backend.board(board.branches)
      if (this.#state.board?.parentId === board.parentId) this.#set({ board: { ...board, result } })
    } catch (error) {
      this.#fail(error)
    }
  }

  /** `k` on the board: keeps the branch at `index` (its files into the parent, the others archived). */
  async keepBranch(index: number): Promise<void> {
    const board = this.#state.board
    const branchId = board?.branches[index]
    if (!board || branchId === undefined) return
    await this.#guard(async () => {
      const result = await runSessionCommand(
        this.#backend,
        board.parentId,
        { name: 'keep', id: branchId },
        {
          style: this.#style,
          frontEnd: 'editor',
        },
      )
      this.#notice(
        result.text.split('\n').slice(0, 2).join(' · '),
        result.outcome === 'done' ? 'info' : 'error',
      )
      if (result.outcome === 'done') {
        this.#set({ board: null })
        await this.#refreshList()
        await this.open(board.parentId)
      }
    })
  }

  #notice(text: string, kind: Notice['kind']): void {
    this.#set({ notice: { text, kind } })
  }

  #fail(error: unknown): void {
    this.#notice(formatFailure(describeFailure(error)), 'error')
  }

  /** Runs an action; a failure becomes the notice line (the screen never dies of one). */
  async #guard(work: () => Promise<unknown>): Promise<void> {
    try {
      await work()
    } catch (error) {
      this.#fail(error)
    }
  }
}

/** Whether the window of a log ends inside a turn. */
function turnRunning(events: readonly SessionEvent[]): boolean {
  for (let i = events.length - 1; i >= 0; i--) {
    const type = events[i]!.type
    if (type === 'turn/end') return false
    if (type === 'turn/start') return true
  }
  return false
}

/** The call still waiting for an answer in a log's window, if any. */
function pendingApproval(sessionId: string, events: readonly SessionEvent[]): PendingApproval | null {
  const answered = new Set<string>()
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'turn/end') return null
    if (event.type === 'permission/answered')
      answered.add(String((event.data as { callId?: unknown }).callId))
    if (event.type === 'permission/requested') {
      const request = event.data as PermissionRequestedData
      if (!answered.has(request.callId)) return { sessionId, request }
    }
  }
  return null
}
