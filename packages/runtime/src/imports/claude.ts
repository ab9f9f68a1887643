// Reads a Claude Code session file (`~/.claude/projects/<folder>/<uuid>.jsonl`) into the neutral
// ImportedTree (issue 31). Written against the files Claude Code 2.1.0–2.1.332 writes
// (test/fixtures/imports/claude/): one JSON record per line; messages linked by `parentUuid`; one
// API message split into one assistant record per content block; tool results inside user records;
// bookkeeping records (queue-operation, cost-state, api-request…) with no `uuid` between them.
import { TangentError } from '@tangent/core'
import { type ImportText, lineLength, linesOf } from './import-lines.js'
import type {
  ImportedEntry,
  ImportedSubtree,
  ImportedToolCall,
  ImportedTree,
  ImportedUsage,
} from './imported-tree.js'

/** The Claude Code versions whose files the reader was tested on; others are refused. */
export const testedClaudeCodeVersions = { oldest: '2.1.0', newest: '2.1.332' } as const

/** A line longer than this is reported as a problem, not parsed. */
const defaultMaxLineLength = 64 * 1024 * 1024

export interface ReadClaudeSessionOptions {
  /** The file's name: its `<uuid>.jsonl` is the session id when no record names one. */
  fileName?: string
  /** The session's subagent files (`<uuid>/subagents/agent-<id>.jsonl`), read as subtrees. */
  subagents?: { fileName: string; text: ImportText }[]
  maxLineLength?: number
}

type JsonRecord = Record<string, unknown>

const isRecord = (value: unknown): value is JsonRecord =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const stringOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)
const numberOf = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined

/** Where the converter starts: entries whose parent resolves here are roots. */
const start = '\u0000start'

/**
 * One conversation's entries being built. Records without a place in the `parentUuid` chain (no
 * uuid) and the results of parallel tool calls (siblings in the file) are placed linearly: `forward`
 * leads from an entry to the one placed after it, and a child of the first hangs after the last, so
 * neither makes a branch the source did not have.
 */
class TreeBuilder {
  readonly entries: ImportedEntry[] = []
  private readonly ids = new Set<string>()
  private readonly aliases = new Map<string, string>()
  private readonly forward = new Map<string, string>()
  private readonly callNames = new Map<string, string>()
  /** callId → the assistant entry that made it; assistant entry → its last tool-result entry. */
  private readonly callOwners = new Map<string, string>()
  private readonly lastResults = new Map<string, string>()
  /** The assistant entry and API message id the last assistant record went into. */
  private openMessage:
    | { entry: Extract<ImportedEntry, { kind: 'assistant' }>; messageId: string; recordIds: Set<string> }
    | undefined
  private last = start
  readonly agentCalls = new Map<string, string>()
  model: string | undefined

  /** The last entry placed after `id` (itself when none); paths are shortened as they are walked. */
  private tail(id: string): string {
    let current = id
    for (let next = this.forward.get(current); next !== undefined; next = this.forward.get(current))
      current = next
    for (let step = id; step !== current; ) {
      const next = this.forward.get(step) as string
      this.forward.set(step, current)
      step = next
    }
    return current
  }

  /** The entry a record with this parentUuid follows. Parents come before children in the file. */
  private parentOf(parentUuid: string | null): string | null {
    const id = parentUuid === null ? start : this.aliases.get(parentUuid)
    if (id === undefined) return null
    const tail = this.tail(id)
    return tail === start ? null : tail
  }

  /** An entry id not taken yet (a hostile file may name a record like a made-up id). */
  private freshId(candidate: string): string {
    let id = candidate
    for (let suffix = 1; this.ids.has(id) || id === start; suffix++) id = `${candidate}@${suffix}`
    this.ids.add(id)
    return id
  }

  private push(entry: ImportedEntry, recordId?: string): void {
    this.entries.push(entry)
    if (recordId !== undefined) this.aliases.set(recordId, entry.id)
    this.last = entry.id
  }

  has(uuid: string): boolean {
    return this.aliases.has(uuid)
  }

  /** A record outside the chain: kept, after the last entry. */
  addLinear(candidateId: string, type: string, raw: unknown, line: number, time?: number): void {
    const id = this.freshId(candidateId)
    const after = this.tail(this.last)
    this.forward.set(after, id)
    this.push({ id, parentId: after === start ? null : after, kind: 'unknown', type, raw, line, time })
  }

  addUnknown(
    uuid: string,
    parentUuid: string | null,
    type: string,
    raw: unknown,
    line: number,
    time?: number,
  ) {
    this.openMessage = undefined
    const parentId = this.parentOf(parentUuid)
    this.push({ id: this.freshId(uuid), parentId, kind: 'unknown', type, raw, line, time }, uuid)
  }

  addSummary(uuid: string, parentUuid: string | null, text: string, line: number, time?: number): void {
    this.openMessage = undefined
    const parentId = this.parentOf(parentUuid)
    this.push(
      {
        id: this.freshId(uuid),
        parentId,
        kind: 'summary',
        text,
        summaryOf: 'compaction',
        line,
        time,
      },
      uuid,
    )
  }

  addUser(
    record: JsonRecord,
    uuid: string,
    parentUuid: string | null,
    content: unknown,
    line: number,
    time?: number,
  ) {
    this.openMessage = undefined
    const blocks =
      typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : []
    const texts: string[] = []
    const images: { mediaType: string; data: string }[] = []
    const results: JsonRecord[] = []
    for (const block of blocks) {
      if (!isRecord(block)) continue
      if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text)
      else if (block.type === 'tool_result') results.push(block)
      else if (block.type === 'image' && isRecord(block.source)) {
        const mediaType = stringOf(block.source.media_type)
        const data = stringOf(block.source.data)
        if (mediaType !== undefined && data !== undefined) images.push({ mediaType, data })
      }
    }
    let parentId = this.parentOf(parentUuid)
    let ids = 0
    const nextId = () => this.freshId(ids++ === 0 ? uuid : `${uuid}#${ids - 1}`)
    for (const result of results) {
      const callId = stringOf(result.tool_use_id) ?? ''
      const owner = this.callOwners.get(callId)
      const previous = owner === undefined ? undefined : this.lastResults.get(owner)
      const id = nextId()
      // A parallel call's result: after the results of the same message, not beside them.
      if (previous !== undefined) {
        const after = this.tail(previous)
        this.forward.set(after, id)
        parentId = after
      }
      if (owner !== undefined) this.lastResults.set(owner, id)
      const agentId = isRecord(record.toolUseResult) ? stringOf(record.toolUseResult.agentId) : undefined
      if (agentId !== undefined) this.agentCalls.set(agentId, callId)
      this.push(
        {
          id,
          parentId,
          kind: 'tool-result',
          callId,
          toolName: this.callNames.get(callId) ?? 'unknown',
          output: resultText(result.content),
          isError: result.is_error === true,
          line,
          time,
        },
        uuid,
      )
      parentId = id
    }
    if (texts.length > 0 || images.length > 0 || results.length === 0) {
      const entry: ImportedEntry = {
        id: nextId(),
        parentId,
        kind: 'user',
        text: texts.join('\n'),
        line,
        time,
      }
      if (images.length > 0) entry.images = images
      this.push(entry, uuid)
    }
  }

  addAssistant(uuid: string, parentUuid: string | null, message: JsonRecord, line: number, time?: number) {
    const messageId = stringOf(message.id)
    const open = this.openMessage
    const content = Array.isArray(message.content) ? message.content : []
    const sameMessage =
      open !== undefined &&
      messageId !== undefined &&
      open.messageId === messageId &&
      parentUuid !== null &&
      open.recordIds.has(parentUuid)
    let entry: Extract<ImportedEntry, { kind: 'assistant' }>
    if (sameMessage && open !== undefined) {
      entry = open.entry
      open.recordIds.add(uuid)
      this.aliases.set(uuid, entry.id)
    } else {
      const parentId = this.parentOf(parentUuid)
      entry = {
        id: this.freshId(uuid),
        parentId,
        kind: 'assistant',
        text: '',
        toolCalls: [],
        line,
        time,
      }
      const model = stringOf(message.model)
      if (model !== undefined && model !== '<synthetic>') {
        entry.model = `anthropic:${model}`
        this.model ??= entry.model
      }
      const usage = usageOf(message.usage)
      if (usage !== undefined) entry.usage = usage
      this.push(entry, uuid)
      this.openMessage =
        messageId === undefined ? undefined : { entry, messageId, recordIds: new Set([uuid]) }
    }
    for (const block of content) {
      if (!isRecord(block)) continue
      if (block.type === 'text' && typeof block.text === 'string') entry.text = join(entry.text, block.text)
      else if (block.type === 'thinking' && typeof block.thinking === 'string')
        entry.reasoning = join(entry.reasoning ?? '', block.thinking)
      else if (block.type === 'tool_use' || block.type === 'server_tool_use') {
        const call = toolCallOf(block, this.cwd)
        entry.toolCalls.push(call)
        this.callNames.set(call.id, call.name)
        this.callOwners.set(call.id, entry.id)
      }
    }
  }

  constructor(readonly cwd: () => string | null) {}
}

const join = (before: string, text: string) => (before === '' ? text : `${before}\n\n${text}`)

function usageOf(value: unknown): ImportedUsage | undefined {
  if (!isRecord(value)) return undefined
  const usage: ImportedUsage = {}
  const input = numberOf(value.input_tokens)
  const output = numberOf(value.output_tokens)
  const cached = numberOf(value.cache_read_input_tokens)
  if (input !== undefined) usage.inputTokens = input
  if (output !== undefined) usage.outputTokens = output
  if (cached !== undefined) usage.cachedInputTokens = cached
  return Object.keys(usage).length > 0 ? usage : undefined
}

/** A tool result's content: a string, or blocks (text kept, images named). */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  const parts: string[] = []
  for (const block of content) {
    if (!isRecord(block)) continue
    if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text)
    else if (block.type === 'image')
      parts.push(`[image${isRecord(block.source) ? `: ${stringOf(block.source.media_type) ?? ''}` : ''}]`)
    else parts.push(`[${stringOf(block.type) ?? 'block'}]`)
  }
  return parts.join('\n')
}

/** A path inside the session's folder becomes relative, as Tangent's tools take it. */
function relativePath(path: unknown, cwd: string | null): unknown {
  if (typeof path !== 'string' || cwd === null) return path
  if (path === cwd) return '.'
  const prefix = cwd.endsWith('/') ? cwd : `${cwd}/`
  return path.startsWith(prefix) && path.length > prefix.length ? path.slice(prefix.length) : path
}

/** Claude Code's tools → Tangent's, where they correspond (the table is in the issue-31 report). */
function toolCallOf(block: JsonRecord, cwd: () => string | null): ImportedToolCall {
  const id = stringOf(block.id) ?? ''
  const sourceName = stringOf(block.name) ?? 'unknown'
  const input = isRecord(block.input) ? block.input : {}
  const mapped = (name: string, mappedInput: JsonRecord): ImportedToolCall => ({
    id,
    name,
    input: Object.fromEntries(Object.entries(mappedInput).filter(([, value]) => value !== undefined)),
    sourceName,
  })
  switch (sourceName) {
    case 'Read':
      return mapped('read', {
        path: relativePath(input.file_path, cwd()),
        offset: input.offset,
        limit: input.limit,
      })
    case 'Write':
      return mapped('write', { path: relativePath(input.file_path, cwd()), content: input.content })
    case 'Edit':
      return mapped('edit', {
        path: relativePath(input.file_path, cwd()),
        oldText: input.old_string,
        newText: input.new_string,
        replaceAll: input.replace_all,
      })
    case 'Bash':
      return mapped('bash', { command: input.command, timeoutMs: input.timeout })
    case 'Grep':
      return mapped('grep', {
        pattern: input.pattern,
        path: relativePath(input.path, cwd()),
        include: input.glob,
        ignoreCase: input['-i'],
      })
    case 'LS':
      return mapped('list', { path: relativePath(input.path, cwd()) })
    case 'Task':
    case 'Agent':
      return mapped('task', { prompt: input.prompt })
    default:
      return { id, name: sourceName, input }
  }
}

function compareVersions(a: number[], b: number[]): number {
  for (let index = 0; index < 3; index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0)
    if (difference !== 0) return difference
  }
  return 0
}
const versionParts = (version: string) => version.split('.').map(Number)

/** Refuses a file written by a Claude Code version the reader was not tested on. */
function checkVersion(version: string): void {
  const parts = versionParts(version)
  const known = /^\d+\.\d+\.\d+$/.test(version)
  if (
    !known ||
    compareVersions(parts, versionParts(testedClaudeCodeVersions.oldest)) < 0 ||
    compareVersions(parts, versionParts(testedClaudeCodeVersions.newest)) > 0
  )
    throw new TangentError(
      'unsupported-version',
      `Claude Code session version ${version.slice(0, 40)} is not supported (tested: ${testedClaudeCodeVersions.oldest}–${testedClaudeCodeVersions.newest})`,
      {
        source: 'claude',
        version: version.slice(0, 40),
        tested: `${testedClaudeCodeVersions.oldest}–${testedClaudeCodeVersions.newest}`,
      },
    )
}

/** Command wrappers Claude Code records as user messages (a slash command and what it printed). */
const commandRecord =
  /^\s*<(command-name|command-message|local-command-stdout|local-command-stderr|local-command-caveat)>/

interface ReadFileResult {
  builder: TreeBuilder
  sidechains: Map<string, TreeBuilder>
  problems: { line: number; message: string }[]
  sessionId?: string
  cwd: string | null
  title?: string
  customTitle?: string
  version?: string
  /** The last version checked (records repeat it). */
  lastVersion?: string
  agentId?: string
  claudeRecords: number
}

function readRecords(text: ImportText, maxLineLength: number, sidechainsApart: boolean): ReadFileResult {
  const result: ReadFileResult = {
    builder: new TreeBuilder(() => result.cwd),
    sidechains: new Map(),
    problems: [],
    cwd: null,
    claudeRecords: 0,
  }
  let line = 0
  for (const source of linesOf(text)) {
    line++
    const length = lineLength(source)
    if (length === 0) continue
    if (typeof source !== 'string' || length > maxLineLength) {
      result.problems.push({
        line,
        message: `line is ${length} ${typeof source === 'string' ? 'characters' : 'bytes'}, over the limit of ${maxLineLength}`,
      })
      continue
    }
    let record: unknown
    try {
      record = JSON.parse(source)
    } catch (error) {
      if (source.trim() === '') continue
      result.problems.push({ line, message: `not JSON: ${(error as Error).message.slice(0, 200)}` })
      continue
    }
    if (!isRecord(record) || typeof record.type !== 'string') {
      result.problems.push({ line, message: 'not a Claude Code record (an object with a string "type")' })
      continue
    }
    readRecord(result, record, line, sidechainsApart)
  }
  return result
}

function readRecord(
  result: ReadFileResult,
  record: JsonRecord,
  line: number,
  sidechainsApart: boolean,
): void {
  const type = record.type as string
  const version = stringOf(record.version)
  if (version !== undefined && version !== result.lastVersion) {
    checkVersion(version)
    result.version ??= version
    result.lastVersion = version
  }
  const sessionId = stringOf(record.sessionId)
  if (sessionId !== undefined) {
    result.claudeRecords++
    result.sessionId ??= sessionId
  }
  result.cwd ??= stringOf(record.cwd) ?? null
  result.agentId ??= stringOf(record.agentId)
  const parsedTime = Date.parse(stringOf(record.timestamp) ?? '')
  const time = Number.isNaN(parsedTime) ? undefined : parsedTime
  if (type === 'custom-title') result.customTitle = stringOf(record.customTitle) ?? result.customTitle
  if (type === 'ai-title' || type === 'summary')
    result.title ??= stringOf(record.aiTitle) ?? stringOf(record.summary)

  const uuid = stringOf(record.uuid)
  let builder = result.builder
  if (sidechainsApart && record.isSidechain === true && uuid !== undefined) {
    const key = stringOf(record.agentId) ?? 'sidechain'
    builder = result.sidechains.get(key) ?? new TreeBuilder(() => result.cwd)
    result.sidechains.set(key, builder)
  }
  if (uuid !== undefined && builder.has(uuid)) {
    result.problems.push({
      line,
      message: `a second record with uuid ${uuid.slice(0, 80)} (the first is kept)`,
    })
    return
  }
  if (uuid === undefined) {
    builder.addLinear(`line:${line}`, type, record, line, time)
    return
  }
  let parentUuid = stringOf(record.parentUuid) ?? null
  // A compaction starts a new chain; its logical parent (when it is in the file, before) joins it to the tree.
  const logicalParent = stringOf(record.logicalParentUuid)
  if (parentUuid === null && logicalParent !== undefined && builder.has(logicalParent))
    parentUuid = logicalParent
  const message = isRecord(record.message) ? record.message : undefined
  if (type === 'assistant' && message !== undefined && record.isApiErrorMessage !== true) {
    builder.addAssistant(uuid, parentUuid, message, line, time)
  } else if (type === 'user' && message !== undefined) {
    const content = message.content
    if (record.isCompactSummary === true)
      builder.addSummary(uuid, parentUuid, resultText(content), line, time)
    else if (record.isMeta === true) builder.addUnknown(uuid, parentUuid, 'user/meta', record, line, time)
    else if (typeof content === 'string' && commandRecord.test(content))
      builder.addUnknown(uuid, parentUuid, 'user/command', record, line, time)
    else builder.addUser(record, uuid, parentUuid, content, line, time)
  } else {
    const subtype = stringOf(record.subtype)
    builder.addUnknown(
      uuid,
      parentUuid,
      subtype === undefined ? type : `${type}/${subtype}`,
      record,
      line,
      time,
    )
  }
}

function sessionIdOfName(fileName: string | undefined): string | undefined {
  const base = fileName?.split(/[\\/]/).pop()
  return base?.endsWith('.jsonl') ? base.slice(0, -'.jsonl'.length) : base
}

function treeOf(
  file: ReadFileResult,
  builder: TreeBuilder,
  sourceId: string,
  subtrees: ImportedSubtree[],
): ImportedTree {
  const tree: ImportedTree = {
    source: 'claude',
    sourceId,
    cwd: file.cwd,
    entries: builder.entries,
    subtrees,
    problems: file.problems,
  }
  if (file.version !== undefined) tree.sourceVersion = file.version
  const title = file.customTitle ?? file.title
  if (title !== undefined) tree.title = title
  if (builder.model !== undefined) tree.model = builder.model
  return tree
}

/**
 * Reads one Claude Code session file (and its subagent files) into an ImportedTree. A malformed
 * line is a problem (the rest is read); a file with no Claude Code record, or one written by an
 * untested Claude Code version, throws a TangentError (`not-a-session-file`, `unsupported-version`).
 */
export function readClaudeSession(text: ImportText, options: ReadClaudeSessionOptions = {}): ImportedTree {
  const maxLineLength = options.maxLineLength ?? defaultMaxLineLength
  const file = readRecords(text, maxLineLength, true)
  const name = options.fileName ?? 'the file'
  if (file.claudeRecords === 0)
    throw new TangentError(
      'not-a-session-file',
      `${name} is not a Claude Code session file (no record with a sessionId${file.problems.length > 0 ? `; ${file.problems.length} unreadable lines` : ''})`,
      { source: 'claude' },
    )
  const sourceId = file.sessionId ?? sessionIdOfName(options.fileName) ?? 'unknown'
  const startedByOf = (agentId: string) => file.builder.agentCalls.get(agentId) ?? `agent:${agentId}`
  const subtrees: ImportedSubtree[] = []
  for (const [agentId, builder] of file.sidechains)
    subtrees.push({
      startedBy: startedByOf(agentId),
      tree: treeOf(
        { ...file, problems: [], title: undefined, customTitle: undefined },
        builder,
        `${sourceId}/${agentId}`,
        [],
      ),
    })
  for (const subagent of options.subagents ?? []) {
    const agentFile = readRecords(subagent.text, maxLineLength, false)
    const agentId = agentFile.agentId ?? sessionIdOfName(subagent.fileName)?.replace(/^agent-/, '') ?? 'agent'
    subtrees.push({
      startedBy: startedByOf(agentId),
      tree: treeOf(
        { ...agentFile, cwd: agentFile.cwd ?? file.cwd },
        agentFile.builder,
        `${sourceId}/${agentId}`,
        [],
      ),
    })
  }
  return treeOf(file, file.builder, sourceId, subtrees)
}
