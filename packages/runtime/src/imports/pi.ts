// Reads a pi session file (`~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl`, pi-coding-agent
// 0.73, session format version 3) into the neutral tree (issue 31). pi's file is already a tree:
// every entry after the header has `id`/`parentId`, and a branch is two entries with one parent.
// Pure: text in, tree out. Every entry is kept — what Tangent has no kind for becomes `unknown`
// (model and thinking-level changes, labels, names, extension records) so the parent links hold.

import { TangentError } from '@tangent/core'
import { z } from 'zod'
import { type ImportLine, type ImportText, linesOf } from './import-lines.js'
import type { ImportedEntry, ImportedTree, ImportedUsage } from './imported-tree.js'
import { importPiToolCall, untranslatedToolName } from './pi-tools.js'

/** The session format versions this reader was written and tested against (pi-coding-agent 0.73.1 writes 3). */
export const testedPiSessionVersions: readonly number[] = [3]

/** A line longer than this (characters) is reported, never parsed: Tangent's event lines stop at 64 MiB. */
export const defaultPiMaxLineLength = 64 * 1024 * 1024

export interface ReadPiSessionOptions {
  maxLineLength?: number
}

const PiSessionHeader = z.looseObject({
  type: z.literal('session'),
  id: z.string().min(1),
  version: z.number().optional(),
  timestamp: z.string(),
  cwd: z.string().optional(),
})

const PiEntryBase = z.looseObject({
  type: z.string().min(1),
  id: z.string().min(1),
  parentId: z.string().min(1).nullable(),
  timestamp: z.string().optional(),
})

const TextBlock = z.looseObject({ type: z.literal('text'), text: z.string() })
const ImageBlock = z.looseObject({ type: z.literal('image'), data: z.string(), mimeType: z.string() })
const ThinkingBlock = z.looseObject({ type: z.literal('thinking'), thinking: z.string() })
const ToolCallBlock = z.looseObject({
  type: z.literal('toolCall'),
  id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.unknown(),
})
const AnyBlock = z.looseObject({ type: z.string() })
const Content = z.union([z.string(), z.array(AnyBlock)])

const PiUsage = z.looseObject({
  input: z.number().optional(),
  output: z.number().optional(),
  cacheRead: z.number().optional(),
})

const piMessages = {
  user: z.looseObject({ role: z.literal('user'), content: Content, timestamp: z.number().optional() }),
  assistant: z.looseObject({
    role: z.literal('assistant'),
    content: z.array(AnyBlock),
    provider: z.string().optional(),
    model: z.string().optional(),
    usage: PiUsage.optional(),
    timestamp: z.number().optional(),
  }),
  toolResult: z.looseObject({
    role: z.literal('toolResult'),
    toolCallId: z.string().min(1),
    toolName: z.string(),
    content: Content,
    isError: z.boolean(),
    timestamp: z.number().optional(),
  }),
  bashExecution: z.looseObject({
    role: z.literal('bashExecution'),
    command: z.string(),
    output: z.string(),
    exitCode: z.number().nullable().optional(),
    cancelled: z.boolean().optional(),
    truncated: z.boolean().optional(),
    fullOutputPath: z.string().optional(),
    excludeFromContext: z.boolean().optional(),
    timestamp: z.number().optional(),
  }),
  branchSummary: z.looseObject({ role: z.literal('branchSummary'), summary: z.string() }),
  compactionSummary: z.looseObject({ role: z.literal('compactionSummary'), summary: z.string() }),
}

const SummaryEntry = z.looseObject({ summary: z.string() })

type EntryBody = ImportedEntry extends infer E
  ? E extends unknown
    ? Omit<E, 'id' | 'parentId' | 'time' | 'line'>
    : never
  : never

/**
 * Reads one pi session file. Throws `not-a-session-file` when the text does not start with a pi
 * session header and `unsupported-version` for a format version it was not tested with; any
 * other line that cannot be read is a problem (its 1-based line and why) and the rest is read.
 */
export function readPiSession(text: ImportText, options: ReadPiSessionOptions = {}): ImportedTree {
  const maxLineLength = options.maxLineLength ?? defaultPiMaxLineLength
  const lines = linesOf(text)[Symbol.iterator]()
  let lineCount = 0
  let headerLine: ImportLine = ''
  for (let next = lines.next(); !next.done; next = lines.next()) {
    lineCount++
    if (typeof next.value === 'string' && next.value.trim() === '') continue
    headerLine = next.value
    break
  }
  const header = readHeader(headerLine, maxLineLength)
  const version = header.version ?? 1
  if (!testedPiSessionVersions.includes(version)) {
    throw new TangentError(
      'unsupported-version',
      `pi session version ${version} is not supported (tested: ${testedPiSessionVersions.join(', ')}); opening it once in a current pi migrates it to version 3`,
      { source: 'pi', version, tested: [...testedPiSessionVersions] },
    )
  }

  const tree: ImportedTree = {
    source: 'pi',
    sourceId: header.id,
    sourceVersion: String(version),
    cwd: header.cwd ? header.cwd : null,
    entries: [],
    subtrees: [],
    problems: [],
  }
  const seen = new Set<string>()
  /** Call id → the name its call was imported under, so a result names the same tool. */
  const callNames = new Map<string, string>()

  for (let next = lines.next(); !next.done; next = lines.next()) {
    const line = ++lineCount
    const problem = (message: string) => tree.problems.push({ line, message })
    if (typeof next.value !== 'string') {
      problem(`line of ${next.value.bytes} bytes is over the ${maxLineLength}-character limit; not read`)
      continue
    }
    const raw = next.value.endsWith('\r') ? next.value.slice(0, -1) : next.value
    if (raw.trim() === '') continue
    if (raw.length > maxLineLength) {
      problem(`line of ${raw.length} characters is over the ${maxLineLength}-character limit; not read`)
      continue
    }
    let record: unknown
    try {
      record = JSON.parse(raw)
    } catch (error) {
      problem(`not JSON: ${(error as Error).message}`)
      continue
    }
    const base = PiEntryBase.safeParse(record)
    if (!base.success) {
      problem('not a pi session entry (an object with a string type, id and parentId)')
      continue
    }
    const { id, parentId, type, timestamp } = base.data
    if (seen.has(id)) {
      problem(`entry id ${JSON.stringify(id)} appears earlier in the file; this line is not read`)
      continue
    }
    seen.add(id)
    const body = readEntryBody(type, record, callNames, problem)
    const time = parseTime(timestamp) ?? messageTime(record)
    tree.entries.push({
      id,
      parentId,
      ...(time === undefined ? {} : { time }),
      line,
      ...body,
    } as ImportedEntry)
    if (body.kind === 'assistant' && body.model && tree.model === undefined) tree.model = body.model
    if (type === 'session_info') {
      const name = (record as { name?: unknown }).name
      if (typeof name === 'string' && name.trim() !== '') tree.title = name.trim()
    }
  }

  // pi reads an entry whose parent is not in the file as a root; so does the tree, and says so.
  for (const entry of tree.entries) {
    if (entry.parentId !== null && !seen.has(entry.parentId)) {
      tree.problems.push({
        line: entry.line ?? 0,
        message: `parent ${JSON.stringify(entry.parentId)} is not in the file; read as a root`,
      })
      entry.parentId = null
    }
  }
  tree.problems.sort((a, b) => a.line - b.line)
  return tree
}

function readHeader(line: ImportLine, maxLineLength: number): z.infer<typeof PiSessionHeader> {
  const refuse = (why: string) =>
    new TangentError('not-a-session-file', `not a pi session file: ${why}`, { source: 'pi' })
  if (line === '') throw refuse('it is empty')
  if (typeof line !== 'string' || line.length > maxLineLength)
    throw refuse('its first line is too long to be a session header')
  let record: unknown
  try {
    record = JSON.parse(line.replace(/^\uFEFF/, ''))
  } catch {
    throw refuse('its first line is not JSON')
  }
  const header = PiSessionHeader.safeParse(record)
  if (!header.success)
    throw refuse('its first line is not a pi session header ({"type":"session","id","timestamp",…})')
  return header.data
}

/** The tree's body of one pi entry; what it cannot hold whole is kept as `unknown`. */
function readEntryBody(
  type: string,
  record: unknown,
  callNames: Map<string, string>,
  problem: (message: string) => void,
): EntryBody {
  const unknown = (as: string = type): EntryBody => ({ kind: 'unknown', type: as, raw: record })
  if (type === 'branch_summary' || type === 'compaction') {
    const entry = SummaryEntry.safeParse(record)
    if (!entry.success) {
      problem(`${type} without a summary text; kept as an unknown record`)
      return unknown()
    }
    return {
      kind: 'summary',
      text: entry.data.summary,
      summaryOf: type === 'compaction' ? 'compaction' : 'branch',
    }
  }
  if (type !== 'message') return unknown()

  const message = (record as { message?: unknown }).message
  const role =
    typeof message === 'object' && message !== null ? (message as { role?: unknown }).role : undefined
  if (typeof role !== 'string' || !Object.hasOwn(piMessages, role)) {
    // `custom` messages (extensions') and roles this reader does not know.
    return unknown(typeof role === 'string' ? `message/${role}` : type)
  }
  const parsed = piMessages[role as keyof typeof piMessages].safeParse(message)
  if (!parsed.success) {
    problem(`a ${role} message of an unexpected shape; kept as an unknown record`)
    return unknown(`message/${role}`)
  }
  const data = parsed.data
  switch (data.role) {
    case 'user': {
      const { text, images } = readUserContent(data.content, problem)
      return images.length > 0 ? { kind: 'user', text, images } : { kind: 'user', text }
    }
    case 'assistant':
      return readAssistant(data, callNames, problem)
    case 'toolResult':
      return {
        kind: 'tool-result',
        callId: data.toolCallId,
        toolName: callNames.get(data.toolCallId) ?? untranslatedToolName(data.toolName),
        output: readResultContent(data.content, problem),
        isError: data.isError,
      }
    case 'bashExecution':
      // A command the user ran with `!`: pi gives it to the model as a user message with this text.
      return data.excludeFromContext
        ? unknown('message/bashExecution')
        : { kind: 'user', text: bashExecutionText(data) }
    case 'branchSummary':
      return { kind: 'summary', text: data.summary, summaryOf: 'branch' }
    case 'compactionSummary':
      return { kind: 'summary', text: data.summary, summaryOf: 'compaction' }
  }
}

function readAssistant(
  data: z.infer<typeof piMessages.assistant>,
  callNames: Map<string, string>,
  problem: (message: string) => void,
): EntryBody {
  const texts: string[] = []
  const thoughts: string[] = []
  const toolCalls = []
  for (const block of data.content) {
    const text = TextBlock.safeParse(block)
    if (text.success) {
      texts.push(text.data.text)
      continue
    }
    const thinking = ThinkingBlock.safeParse(block)
    if (thinking.success) {
      if (thinking.data.thinking !== '') thoughts.push(thinking.data.thinking)
      continue
    }
    const call = ToolCallBlock.safeParse(block)
    if (call.success) {
      const imported = importPiToolCall(call.data.id, call.data.name, call.data.arguments)
      callNames.set(imported.id, imported.name)
      toolCalls.push(imported)
      continue
    }
    problem(`an assistant content block of type ${JSON.stringify(block.type)} is not imported`)
  }
  const body: EntryBody = { kind: 'assistant', text: texts.join('\n'), toolCalls }
  if (thoughts.length > 0) body.reasoning = thoughts.join('\n')
  if (data.provider && data.model) body.model = `${data.provider}:${data.model}`
  const usage = readUsage(data.usage)
  if (usage) body.usage = usage
  return body
}

function readUsage(usage: z.infer<typeof PiUsage> | undefined): ImportedUsage | undefined {
  if (!usage) return undefined
  const out: ImportedUsage = {}
  if (usage.input !== undefined) out.inputTokens = usage.input
  if (usage.output !== undefined) out.outputTokens = usage.output
  if (usage.cacheRead !== undefined) out.cachedInputTokens = usage.cacheRead
  return Object.keys(out).length > 0 ? out : undefined
}

function readUserContent(
  content: z.infer<typeof Content>,
  problem: (message: string) => void,
): { text: string; images: { mediaType: string; data: string }[] } {
  if (typeof content === 'string') return { text: content, images: [] }
  const texts: string[] = []
  const images: { mediaType: string; data: string }[] = []
  for (const block of content) {
    const text = TextBlock.safeParse(block)
    if (text.success) {
      texts.push(text.data.text)
      continue
    }
    const image = ImageBlock.safeParse(block)
    if (image.success) {
      images.push({ mediaType: image.data.mimeType, data: image.data.data })
      continue
    }
    problem(`a user content block of type ${JSON.stringify(block.type)} is not imported`)
  }
  return { text: texts.join('\n'), images }
}

/** A tool result's text; an image in it (pi's read of an image file) is named, since the tree holds text only. */
function readResultContent(content: z.infer<typeof Content>, problem: (message: string) => void): string {
  if (typeof content === 'string') return content
  const parts: string[] = []
  for (const block of content) {
    const text = TextBlock.safeParse(block)
    if (text.success) {
      parts.push(text.data.text)
      continue
    }
    const image = ImageBlock.safeParse(block)
    if (image.success) {
      parts.push(`[image ${image.data.mimeType}, ${image.data.data.length} base64 characters, not imported]`)
      problem(`an image in a tool result is not imported (the tree holds text results only)`)
      continue
    }
    problem(`a tool result content block of type ${JSON.stringify(block.type)} is not imported`)
  }
  return parts.join('\n')
}

/** pi's own rendering of a user-run command for the model (`bashExecutionToText` in its messages.js). */
function bashExecutionText(message: z.infer<typeof piMessages.bashExecution>): string {
  let text = `Ran \`${message.command}\`\n`
  text += message.output ? `\`\`\`\n${message.output}\n\`\`\`` : '(no output)'
  if (message.cancelled) text += '\n\n(command cancelled)'
  else if (message.exitCode !== null && message.exitCode !== undefined && message.exitCode !== 0)
    text += `\n\nCommand exited with code ${message.exitCode}`
  if (message.truncated && message.fullOutputPath)
    text += `\n\n[Output truncated. Full output: ${message.fullOutputPath}]`
  return text
}

function parseTime(timestamp: string | undefined): number | undefined {
  if (timestamp === undefined) return undefined
  const time = Date.parse(timestamp)
  return Number.isFinite(time) ? time : undefined
}

function messageTime(record: unknown): number | undefined {
  const message = (record as { message?: unknown }).message
  const time =
    typeof message === 'object' && message !== null
      ? (message as { timestamp?: unknown }).timestamp
      : undefined
  return typeof time === 'number' && Number.isFinite(time) ? time : undefined
}
