// The reader of Codex CLI rollout files (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`, issue 31):
// one rollout in, one neutral tree out (imported-tree.ts). Written against the files Codex 0.171.0
// writes (test/fixtures/imports/codex/, made by the real CLI); other versions are refused.
//
// A rollout is one JSON record a line: `{timestamp, ordinal, type, payload}`. The conversation is
// in the `response_item` records (the Responses API items the model saw and produced); the
// `event_msg` records mirror them for UIs, and `token_usage_record` carries each response's usage.
// A rollout is linear: each entry follows the previous one. `codex exec fork` writes a new rollout
// that names its parent (`forked_from_id`) and continues it from a point, without copying it.
import fs from 'node:fs/promises'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { toolHomeDir } from '../tool-homes.js'
import { type ImportText, linesOf } from './import-lines.js'
import type { ImportedEntry, ImportedToolCall, ImportedTree, ImportedUsage } from './imported-tree.js'

/** The Codex CLI versions whose rollouts this reader was written and tested against. */
export const testedCodexVersions: readonly string[] = ['0.171.0']

type JsonObject = Record<string, unknown>
type AssistantEntry = Extract<ImportedEntry, { kind: 'assistant' }>

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const stringOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)

/** `event_msg` payload types that only mirror `response_item` records or mark turns: read, not kept. */
const mirroredEvents = new Set([
  'item_started',
  'item_completed',
  'token_count',
  'task_started',
  'task_complete',
  'thread_settings_applied',
  'user_message',
  'agent_message',
  'agent_reasoning',
  'agent_reasoning_raw_content',
  'exec_command_begin',
  'exec_command_end',
  'patch_apply_begin',
  'patch_apply_end',
])

/** Context Codex injects as user-role messages (not typed by the user). */
const injectedContext =
  /^\s*(<(environment_context|user_instructions|user_shell_command|turn_aborted)\b|# AGENTS\.md instructions)/

/** Reads one Codex rollout. Throws `not-a-session-file` or `unsupported-version` when it cannot read it at all. */
export function readCodexRollout(text: ImportText): ImportedTree {
  const lines = linesOf(text)[Symbol.iterator]()
  const head = lines.next()
  const first = parseLine(head.done || typeof head.value !== 'string' ? '' : head.value)
  const meta =
    isObject(first) && first.type === 'session_meta' && isObject(first.payload) ? first.payload : null
  const sessionId = meta && stringOf(meta.id)
  if (!meta || !sessionId) {
    throw new TangentError(
      'not-a-session-file',
      'not a Codex rollout: its first line is not a Codex session_meta record',
      { source: 'codex' },
    )
  }
  const version = stringOf(meta.cli_version)
  if (!version || !testedCodexVersions.includes(version)) {
    throw new TangentError(
      'unsupported-version',
      `Codex rollout version ${version ?? '(none recorded)'} is not supported (tested: ${testedCodexVersions.join(', ')})`,
      { source: 'codex', version: version ?? null, tested: [...testedCodexVersions] },
    )
  }

  const tree: ImportedTree = {
    source: 'codex',
    sourceId: sessionId,
    sourceVersion: version,
    cwd: stringOf(meta.cwd) ?? null,
    entries: [],
    subtrees: [],
    problems: [],
  }
  const parentSession = stringOf(meta.forked_from_id)
  const forkOrdinal = meta.forked_from_ordinal_exclusive
  if (parentSession && typeof forkOrdinal === 'number') {
    // Ordinal k is on line k + 1, so the records before ordinal N end on line N.
    tree.forkedFrom = { sourceId: parentSession, throughLine: forkOrdinal }
  }
  const provider = stringOf(meta.model_provider)
  let model: string | undefined
  let current: AssistantEntry | null = null
  /** The latest model response, which the usage records that follow it belong to. */
  const last: { assistant: AssistantEntry | null } = { assistant: null }
  const calls = new Map<string, ImportedToolCall>()
  const exitCodes = new Map<string, number>()

  const push = (entry: ImportedEntry) => {
    entry.parentId = tree.entries.at(-1)?.id ?? null
    tree.entries.push(entry)
  }
  const keepUnknown = (type: string, raw: unknown, base: Base) => {
    current = null
    push({ ...base, kind: 'unknown', type, raw })
  }

  let lineCount = 1
  for (let next = lines.next(); !next.done; next = lines.next()) {
    const lineText = next.value
    const line = ++lineCount
    if (typeof lineText !== 'string') {
      tree.problems.push({ line, message: `line is ${lineText.bytes} bytes, over the limit; not read` })
      continue
    }
    if (lineText.trim() === '') continue
    const record = parseLine(lineText)
    if (!isObject(record) || typeof record.type !== 'string') {
      tree.problems.push({
        line,
        message: record === undefined ? 'not valid JSON' : 'not a rollout record (no string `type`)',
      })
      continue
    }
    const payload = isObject(record.payload) ? record.payload : {}
    const base: Base = { id: String(line), parentId: null, line, time: timeOf(record.timestamp) }

    switch (record.type) {
      case 'turn_context': {
        const turnModel = stringOf(payload.model)
        if (turnModel) model = provider ? `${provider}:${turnModel}` : turnModel
        break
      }
      case 'token_usage_record': {
        current = null
        if (last.assistant && !last.assistant.usage) last.assistant.usage = usageOf(payload.usage)
        break
      }
      case 'event_msg': {
        const type = stringOf(payload.type) ?? ''
        if (type === 'token_count') {
          current = null
          const info = isObject(payload.info) ? payload.info : {}
          if (last.assistant && !last.assistant.usage && isObject(info.last_token_usage)) {
            last.assistant.usage = usageOf(info.last_token_usage)
          }
        } else if (type === 'item_completed' && isObject(payload.item)) {
          const item = payload.item
          const id = stringOf(item.id)
          if (id && item.type === 'CommandExecution' && typeof item.exit_code === 'number') {
            exitCodes.set(id, item.exit_code)
          } else if (id && item.type === 'FileChange' && typeof item.status === 'string') {
            exitCodes.set(id, item.status === 'completed' ? 0 : 1)
          }
        } else if (!mirroredEvents.has(type)) {
          keepUnknown(`event_msg/${type}`, record, base)
        }
        break
      }
      case 'compacted': {
        // The summary the history continues from (its `replacement_history`, the items Codex keeps
        // after it, stays in the file: the summary stands for everything before it here)
        current = null
        push({ ...base, kind: 'summary', text: stringOf(payload.message) ?? '', summaryOf: 'compaction' })
        break
      }
      case 'response_item': {
        const type = stringOf(payload.type) ?? ''
        const role = stringOf(payload.role)
        if (isObject(record.metadata) && record.metadata.compaction_output === true) {
          // The model's answer to a compaction request: the `compacted` record after it carries it
          keepUnknown('response_item/compaction-output', record, base)
        } else if (type === 'message' && role === 'user') {
          current = null
          const { text, images } = userContentOf(payload.content)
          if (isInjected(payload, text)) keepUnknown('response_item/message:context', record, base)
          else push({ ...base, kind: 'user', text, ...(images.length > 0 ? { images } : {}) })
        } else if (type === 'message' && role === 'assistant') {
          current = current ?? startAssistant(base)
          const entry = current
          entry.text += textOf(payload.content)
        } else if (type === 'reasoning') {
          current = current ?? startAssistant(base)
          const entry = current
          const reasoning = reasoningOf(payload)
          if (reasoning) entry.reasoning = entry.reasoning ? `${entry.reasoning}\n\n${reasoning}` : reasoning
        } else if (type === 'function_call' || type === 'custom_tool_call') {
          const call = toolCallOf(payload, tree.cwd, line)
          current = current ?? startAssistant(base)
          const entry = current
          entry.toolCalls.push(call)
          calls.set(call.id, call)
        } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
          current = null
          const callId = stringOf(payload.call_id) ?? ''
          const { output, failed } = outputOf(payload.output)
          const exitCode = exitCodes.get(callId) ?? exitCodeIn(output)
          push({
            ...base,
            kind: 'tool-result',
            callId,
            toolName: calls.get(callId)?.name ?? 'unknown',
            output,
            isError: failed || (exitCode !== undefined && exitCode !== 0),
          })
        } else {
          keepUnknown(`response_item/${type}${role ? `:${role}` : ''}`, record, base)
        }
        break
      }
      default:
        keepUnknown(record.type, record, base)
    }
  }
  tree.model = tree.entries.find((entry): entry is AssistantEntry => entry.kind === 'assistant')?.model
  return tree

  function startAssistant(base: Base): AssistantEntry {
    const entry: AssistantEntry = {
      ...base,
      kind: 'assistant',
      text: '',
      toolCalls: [],
      ...(model ? { model } : {}),
    }
    push(entry)
    last.assistant = entry
    return entry
  }
}

type Base = { id: string; parentId: string | null; line: number; time?: number }

function parseLine(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function timeOf(value: unknown): number | undefined {
  const time = typeof value === 'string' ? Date.parse(value) : Number.NaN
  return Number.isFinite(time) ? time : undefined
}

function usageOf(value: unknown): ImportedUsage | undefined {
  if (!isObject(value)) return undefined
  const usage: ImportedUsage = {}
  const number = (key: string) => (typeof value[key] === 'number' ? (value[key] as number) : undefined)
  if (number('input_tokens') !== undefined) usage.inputTokens = number('input_tokens')
  if (number('output_tokens') !== undefined) usage.outputTokens = number('output_tokens')
  if (number('cached_input_tokens') !== undefined) usage.cachedInputTokens = number('cached_input_tokens')
  if (number('reasoning_output_tokens') !== undefined)
    usage.reasoningTokens = number('reasoning_output_tokens')
  return usage
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : '')).join('')
}

function userContentOf(content: unknown) {
  const images: { mediaType: string; data: string }[] = []
  const texts: string[] = []
  const parts = Array.isArray(content) ? content : []
  const hasImages = parts.some((part) => isObject(part) && part.type === 'input_image')
  for (const part of parts) {
    if (!isObject(part)) continue
    // Codex frames each attached image with `<image name=… path=…>` and `</image>` text parts
    if (hasImages && typeof part.text === 'string' && /^(<image\b[^>]*>|<\/image>)$/.test(part.text)) continue
    if (typeof part.text === 'string') texts.push(part.text)
    const url = stringOf(part.image_url)
    const match = url && /^data:([^;,]+);base64,(.*)$/s.exec(url)
    if (match) images.push({ mediaType: match[1]!, data: match[2]! })
    else if (url) texts.push(`[image: ${url}]`)
  }
  return { text: texts.join('\n'), images }
}

function isInjected(payload: JsonObject, text: string): boolean {
  const passthrough = payload.internal_chat_message_metadata_passthrough
  const metadata = isObject(passthrough) ? passthrough.content_item_metadata : undefined
  if (Array.isArray(metadata) && metadata.length > 0) {
    return metadata.every(
      (item) => isObject(item) && isObject(item.provenance) && item.provenance.type !== 'user',
    )
  }
  return injectedContext.test(text)
}

function reasoningOf(payload: JsonObject): string {
  const parts = [
    ...(Array.isArray(payload.summary) ? payload.summary : []),
    ...(Array.isArray(payload.content) ? payload.content : []),
  ]
  return parts
    .map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : ''))
    .filter((text) => text !== '')
    .join('\n\n')
}

function outputOf(value: unknown): { output: string; failed: boolean } {
  if (typeof value === 'string') return { output: value, failed: false }
  if (Array.isArray(value)) return { output: textOf(value), failed: false }
  if (isObject(value)) {
    const output = typeof value.content === 'string' ? value.content : textOf(value.content)
    return { output, failed: value.success === false }
  }
  return { output: JSON.stringify(value) ?? '', failed: false }
}

/** Codex's shell outputs say how the command ended in a header line. */
function exitCodeIn(output: string): number | undefined {
  const match = /^(?:Process exited with code|Exit code:) (-?\d+)$/m.exec(output)
  return match ? Number(match[1]) : undefined
}

/** A tool call, under Tangent's tool where it says the same thing, else under its own name. */
function toolCallOf(payload: JsonObject, cwd: string | null, line: number): ImportedToolCall {
  const sourceName = stringOf(payload.name) ?? stringOf(payload.type) ?? 'unknown'
  const id = stringOf(payload.call_id) ?? stringOf(payload.id) ?? `line-${line}`
  let input: unknown
  if (payload.type === 'custom_tool_call') input = payload.input
  else {
    const args = stringOf(payload.arguments)
    input = args === undefined ? payload.arguments : (parseLine(args) ?? args)
  }
  const mapped = mapTool(sourceName, input, cwd)
  return mapped ? { id, name: mapped.name, input: mapped.input, sourceName } : { id, name: sourceName, input }
}

/** The `exec_command` arguments that leave the command `bash` runs the same. */
const sameCommandKeys = new Set([
  'cmd',
  'workdir',
  'yield_time_ms',
  'max_output_tokens',
  'login',
  'justification',
  'sandbox_permissions',
  'prefix_rule',
])

function mapTool(name: string, input: unknown, cwd: string | null): { name: string; input: unknown } | null {
  if (name === 'exec_command' && isObject(input) && typeof input.cmd === 'string' && input.cmd !== '') {
    // A command run elsewhere than the session folder, in another shell or on a terminal is not
    // what `bash` would run; waiting, output budgets and approval notes do not change the command.
    if (input.workdir !== undefined && input.workdir !== cwd) return null
    if (!Object.keys(input).every((key) => sameCommandKeys.has(key))) return null
    return { name: 'bash', input: { command: input.cmd } }
  }
  if (name === 'apply_patch') {
    const patch = typeof input === 'string' ? input : isObject(input) ? stringOf(input.input) : undefined
    return patch === undefined ? null : patchAsTool(patch, cwd)
  }
  return null
}

/**
 * One `apply_patch` as Tangent's `write` (a single Add File) or `edit` (a single Update File with
 * one hunk and no move), the path made relative to the session folder; anything else (deletes,
 * moves, several files or hunks) stays `apply_patch`.
 */
export function patchAsTool(patch: string, cwd: string | null): { name: string; input: unknown } | null {
  const lines = patch.replace(/\n$/, '').split('\n')
  if (lines[0]?.trim() !== '*** Begin Patch' || lines.at(-1)?.trim() !== '*** End Patch') return null
  const body = lines.slice(1, -1)
  const headers = body.filter((line) => line.startsWith('*** '))
  const header = /^\*\*\* (Add|Update) File: (.+)$/.exec(headers[0] ?? '')
  if (headers.length !== 1 || !header || !body[0]?.startsWith('*** ')) return null
  const file = relativePath(header[2]!, cwd)
  if (!file) return null
  const rest = body.slice(1)
  if (header[1] === 'Add') {
    if (!rest.every((line) => line.startsWith('+'))) return null
    return {
      name: 'write',
      input: { path: file, content: rest.map((line) => `${line.slice(1)}\n`).join('') },
    }
  }
  if (rest.filter((line) => line.startsWith('@@')).length > 1) return null
  const hunk = rest[0]?.startsWith('@@') ? rest.slice(1) : rest
  if (rest[0] !== undefined && rest[0] !== '@@' && rest[0].startsWith('@@')) return null // a context anchor
  const oldLines: string[] = []
  const newLines: string[] = []
  for (const line of hunk) {
    const mark = line[0] ?? ' '
    const content = line.slice(1)
    if (mark === ' ' || line === '') {
      oldLines.push(content)
      newLines.push(content)
    } else if (mark === '-') oldLines.push(content)
    else if (mark === '+') newLines.push(content)
    else return null
  }
  if (oldLines.length === 0) return null
  return { name: 'edit', input: { path: file, oldText: oldLines.join('\n'), newText: newLines.join('\n') } }
}

function relativePath(file: string, cwd: string | null): string | null {
  if (!path.isAbsolute(file)) return file.split('/').includes('..') ? null : file
  if (!cwd) return null
  const relative = path.relative(cwd, file)
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? null : relative
}

/**
 * The rollouts of Codex's default location (`$CODEX_HOME/sessions`, else `~/.codex/sessions`) whose
 * session folder is `folder`, or all of them when `folder` is null, oldest first. Reads only the
 * first line of each file.
 */
export async function codexSessionFiles(
  env: { HOME?: string; CODEX_HOME?: string },
  folder: string | null,
): Promise<string[]> {
  const codexHome = toolHomeDir('codex', env)
  if (!codexHome) return []
  const files: string[] = []
  const walk = async (dir: string, depth: number) => {
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => [])
    for (const entry of entries) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory() && depth < 3) await walk(full, depth + 1)
      else if (entry.isFile() && /^rollout-.*\.jsonl$/.test(entry.name)) files.push(full)
    }
  }
  await walk(path.join(codexHome, 'sessions'), 0)
  files.sort((a, b) => path.basename(a).localeCompare(path.basename(b)) || a.localeCompare(b))
  if (folder === null) return files
  const wanted = path.resolve(folder)
  const matching: string[] = []
  for (const file of files) {
    const meta = await firstRecord(file)
    const cwd = isObject(meta) && isObject(meta.payload) ? stringOf(meta.payload.cwd) : undefined
    if (cwd && path.resolve(cwd) === wanted) matching.push(file)
  }
  return matching
}

/** The first line of a file parsed, reading no more than `limit` bytes (session_meta holds the instructions). */
async function firstRecord(file: string, limit = 4 << 20): Promise<unknown> {
  const handle = await fs.open(file, 'r').catch(() => null)
  if (!handle) return undefined
  try {
    const chunks: Buffer[] = []
    let size = 0
    while (size < limit) {
      const buffer = Buffer.alloc(64 << 10)
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, size)
      if (bytesRead === 0) break
      const chunk = buffer.subarray(0, bytesRead)
      const newline = chunk.indexOf(10)
      if (newline >= 0) {
        chunks.push(chunk.subarray(0, newline))
        return parseLine(Buffer.concat(chunks).toString('utf8'))
      }
      chunks.push(chunk)
      size += bytesRead
    }
    return size < limit ? parseLine(Buffer.concat(chunks).toString('utf8')) : undefined
  } finally {
    await handle.close()
  }
}
