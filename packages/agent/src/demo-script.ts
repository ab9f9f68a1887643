// What the offline demo model answers, as a pure function of the prompt: commands in the
// latest user message become tool calls; after the tool results, a short report; otherwise a
// text reply that quotes the message and says which turn of the conversation this is; each
// answer then lists the notes from Tangent it read. A compaction's summary request gets a
// summary that lists the user's messages. It acts on the user's own words only: a note replay
// puts before them (a kept branch's summary) or a compaction's summary is context, never a command.
import type {
  LanguageModelV4FilePart,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultOutput,
} from '@ai-sdk/provider'
import { compactionPreamble, isReplayNote } from '@tangent/core'
import { compactionRequest } from './context/compaction-request.js'

export interface DemoToolCall {
  readonly toolCallId: string
  readonly toolName: string
  readonly input: Record<string, unknown>
}

export type DemoReply =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'tool-calls'; readonly calls: readonly DemoToolCall[] }

/** One line of a user message understood as a command, or null. */
export function parseDemoCommand(line: string): Omit<DemoToolCall, 'toolCallId'> | null {
  const trimmed = line.trim()
  const file = /^(write|append)\s+(.+?):\s?(.*)$/i.exec(trimmed)
  if (file) {
    const append = file[1]!.toLowerCase() === 'append'
    const input = { path: file[2]!.trim(), content: `${file[3]!}\n`, ...(append ? { append: true } : {}) }
    return { toolName: 'write', input }
  }
  const read = /^read\s+(.+)$/i.exec(trimmed)
  if (read) return { toolName: 'read', input: { path: read[1]!.trim() } }
  const run = /^run:\s*(.+)$/i.exec(trimmed)
  if (run) return { toolName: 'bash', input: { command: run[1]!.trim() } }
  // Delegation (docs/architecture.md §14.1): the rest of the line is the subagent's prompt.
  const task = /^task:\s*(.+)$/i.exec(trimmed)
  if (task) return { toolName: 'task', input: { prompt: task[1]!.trim() } }
  // Any tool by name, e.g. an MCP server's: `call mcp__everything__echo: {"message": "hi"}`.
  const call = /^call\s+([\w.-]+):?\s*(.*)$/i.exec(trimmed)
  if (call) return { toolName: call[1]!, input: jsonObject(call[2]!.trim()) }
  return null
}

/** The arguments of a `call` line: a JSON object, or `{}` for anything else. */
function jsonObject(text: string): Record<string, unknown> {
  if (text === '') return {}
  try {
    const value: unknown = JSON.parse(text)
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>
  } catch {
    // Not JSON: the tool gets no arguments and its server says what is missing.
  }
  return {}
}

export function planDemoReply(prompt: LanguageModelV4Prompt): DemoReply {
  const lastUser = prompt.findLastIndex((message) => message.role === 'user')
  if (lastUser < 0) return { kind: 'text', text: 'Hello! Send me a message.' }
  const turn = prompt.filter((message) => message.role === 'user').length
  const after = prompt.slice(lastUser + 1)
  const { text, notes, images } = userMessage(prompt[lastUser]!)
  const heard = notes.map((note) => `\nNoted: ${firstLine(note)}`).join('')
  if (after.some((message) => message.role === 'tool')) return { kind: 'text', text: report(after) + heard }

  if (text === compactionRequest) return { kind: 'text', text: summary(prompt.slice(0, lastUser)) }
  const calls: DemoToolCall[] = []
  for (const line of text.split('\n')) {
    const command = parseDemoCommand(line)
    if (command) calls.push({ ...command, toolCallId: `demo-${turn}-${calls.length + 1}` })
  }
  if (calls.length > 0) return { kind: 'tool-calls', calls }
  const quoted = text.length > 200 ? `${text.slice(0, 200)}…` : text
  const said = text === '' && images.length > 0 ? `Turn ${turn}:` : `Turn ${turn}: you said "${quoted}".`
  const seen =
    images.length === 0
      ? ''
      : ` Received ${images.length} image${images.length === 1 ? '' : 's'}: ${images.join(', ')}.`
  return { kind: 'text', text: `${said}${seen}${heard}` }
}

/**
 * A user message split into the text the user wrote (its text parts, one line each) and the
 * notes from Tangent replay put before it; a compaction's summary joined to it is neither.
 */
function userMessage(message: LanguageModelV4Prompt[number]): {
  text: string
  notes: string[]
  images: string[]
} {
  if (message.role !== 'user') return { text: '', notes: [], images: [] }
  const preamble = compactionPreamble('')
  const own: string[] = []
  const notes: string[] = []
  const images: string[] = []
  for (const part of message.content) {
    if (part.type === 'file') images.push(`${part.mediaType} (${fileBytes(part.data)} bytes)`)
    if (part.type !== 'text' || part.text.startsWith(preamble)) continue
    if (isReplayNote(part.text)) notes.push(part.text)
    else own.push(part.text)
  }
  return { text: own.join('\n'), notes, images }
}

/** The size of a file part's bytes, as the demo reports it (so a test sees what arrived). */
function fileBytes(data: LanguageModelV4FilePart['data']): number | string {
  if (data.type !== 'data') return data.type
  if (typeof data.data !== 'string') return data.data.byteLength
  const padding = data.data.endsWith('==') ? 2 : data.data.endsWith('=') ? 1 : 0
  return (data.data.length / 4) * 3 - padding
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0]!
}

/** The demo's summary: the items of an earlier summary, then one line per user message. */
function summary(history: LanguageModelV4Prompt): string {
  const preamble = compactionPreamble('')
  const lines = ['Summary of the conversation so far:']
  for (const message of history) {
    if (message.role !== 'user') continue
    for (const part of message.content) {
      if (part.type === 'file') lines.push(`- The user sent an image (${part.mediaType})`)
      if (part.type !== 'text') continue
      if (part.text.startsWith(preamble)) {
        lines.push(...part.text.split('\n').filter((line) => line.startsWith('- ')))
      } else if (isReplayNote(part.text)) {
        lines.push(`- Noted: ${firstLine(part.text)}`)
      } else {
        const said = part.text.replace(/\s+/g, ' ').trim()
        lines.push(`- The user said: "${said.length > 120 ? `${said.slice(0, 120)}…` : said}"`)
      }
    }
  }
  return lines.join('\n')
}

/** One line (or a few) per tool call of the step, in call order. */
function report(after: LanguageModelV4Prompt): string {
  const results = new Map<string, { output: string; isError: boolean }>()
  for (const message of after) {
    if (message.role !== 'tool') continue
    for (const part of message.content) {
      if (part.type === 'tool-result') results.set(part.toolCallId, outputText(part.output))
    }
  }
  const lines: string[] = []
  for (const message of after) {
    if (message.role !== 'assistant') continue
    for (const part of message.content) {
      if (part.type !== 'tool-call') continue
      const result = results.get(part.toolCallId) ?? { output: 'no result', isError: true }
      lines.push(describe(part.toolName, (part.input ?? {}) as Record<string, unknown>, result))
    }
  }
  return lines.join('\n')
}

function describe(
  toolName: string,
  input: Record<string, unknown>,
  result: { output: string; isError: boolean },
): string {
  const target = String(input.path ?? input.command ?? '')
  if (toolName === 'bash') {
    const status = /\[(exit code (\d+)|killed[^\]]*)\]$/.exec(result.output)
    const body = result.output.replace(/\n?\[[^\]]*\]$/, '').trim()
    const how = status?.[2] !== undefined ? `exit ${status[2]}` : (status?.[1] ?? 'failed')
    const shown = body === '' || body === '(no output)' ? '' : `\n${clip(body)}`
    return `Ran "${target}": ${how}.${shown}`
  }
  if (toolName === 'task') {
    return result.isError ? `Could not delegate "${String(input.prompt)}": ${result.output}` : result.output
  }
  if (result.isError) {
    const verb = toolName === 'write' && input.append ? 'append to' : toolName
    return `Could not ${verb} ${target}: ${result.output}`
  }
  if (toolName === 'read') return `Read ${target}:\n${clip(result.output.replace(/\n$/, ''))}`
  return result.output
}

function clip(text: string): string {
  return text.length > 500 ? `${text.slice(0, 500)}…` : text
}

function outputText(output: LanguageModelV4ToolResultOutput): { output: string; isError: boolean } {
  switch (output.type) {
    case 'text':
      return { output: output.value, isError: false }
    case 'error-text':
      return { output: output.value, isError: true }
    case 'json':
      return { output: JSON.stringify(output.value), isError: false }
    case 'error-json':
      return { output: JSON.stringify(output.value), isError: true }
    case 'execution-denied':
      return { output: output.reason ?? 'denied', isError: true }
    default:
      return { output: JSON.stringify(output.value), isError: false }
  }
}
