// `tangent export --format codex`: a session's history as a Codex CLI rollout that `codex resume ID`
// (and `codex exec resume ID`) continues (issue 31; docs/architecture.md, "Moving in and out").
// The inverse of imports/codex.ts, written for the Codex version that reader was tested against.
//
// What Codex replays on resume is the `response_item` records: the Responses API items the model
// saw. They are built from what Tangent's model saw (`toModelMessages`, so a compaction's summary
// and Tangent's notes are there too), with Tangent's tools under Codex's own where one says the
// same thing (`bash` → `exec_command`, a whole-file `write` or a plain `edit` → `apply_patch`);
// other calls keep their names. Reasoning is left out: the Responses API only takes back reasoning
// items it produced itself (encrypted). `event_msg` records mirror the texts for Codex's UIs.
// `session_meta` names no model provider and no `turn_context` is written: Codex refuses to resume
// a rollout under another provider than the one it records, so the user's own configuration picks
// the provider and model. Checked against the real Codex by test/e2e/export-codex.e2e.ts.
import { latestCompaction, type SessionEvent, toModelMessages } from '@tangent/core'
import { exportedSessionUuid } from './export-ids.js'
import type { ToolExporter } from './export-types.js'

/** One line of a rollout; its `ordinal` (its 0-based line) is added when the lines are written. */
interface RolloutRecord {
  timestamp: string
  type: string
  payload: Record<string, unknown>
}
/** A message as Tangent's model saw it (the AI SDK's shape). */
type ModelMessage = ReturnType<typeof toModelMessages>[number]

/**
 * The Codex CLI version the rollout claims: the one its records were checked against, which the
 * reader (imports/codex.ts, `testedCodexVersions`) takes too. Not imported from there: the reader
 * loads only when an import needs it.
 */
export const codexExportVersion = '0.171.0'

export const exportCodex: ToolExporter = (session, throughSeq, _context) => {
  const events = session.events.slice(0, throughSeq + 1)
  const sessionId = codexSessionIdOf(session.id)
  const createdAt = session.header.createdAt
  const times = new MessageTimes(events, createdAt)
  const records: RolloutRecord[] = [
    {
      timestamp: iso(createdAt),
      type: 'session_meta',
      payload: {
        id: sessionId,
        timestamp: iso(createdAt),
        cwd: session.header.cwd,
        originator: 'tangent',
        cli_version: codexExportVersion,
        source: 'cli',
        // As Codex 0.171.0 writes its own: records numbered, so it numbers what it appends on and
        // a `codex fork` of it names the point it forked at instead of copying the history.
        history_mode: 'paginated',
      },
    },
  ]
  const written: WrittenSoFar = { records, times, calls: new Map() }
  for (const message of toModelMessages(events)) writeRecordsOf(message, written)
  return {
    lines: records.map(({ timestamp, type, payload }, ordinal) =>
      JSON.stringify({ timestamp, ordinal, type, payload }),
    ),
    file: { tool: 'codex', sessionId, path: codexRolloutPath(sessionId, createdAt) },
  }
}

/** The UUID Codex knows a Tangent session by (export-ids.ts): a re-export replaces its own file. */
export const codexSessionIdOf = exportedSessionUuid

/** Where Codex looks for a rollout, relative to its home: the session's creation day (UTC). */
export function codexRolloutPath(sessionId: string, createdAt: number): string {
  const stamp = iso(createdAt) // 2026-12-04T02:54:11.486Z
  const [year, month, day] = stamp.slice(0, 10).split('-')
  return `sessions/${year}/${month}/${day}/rollout-${stamp.slice(0, 19).replaceAll(':', '-')}-${sessionId}.jsonl`
}

/** A tool call as Codex's tool where one does the same, else under its own name. */
export type CodexCall =
  | { type: 'function_call'; name: string; arguments: string }
  | { type: 'custom_tool_call'; name: 'apply_patch'; input: string }

export function codexCallOf(toolName: string, input: unknown): CodexCall {
  const object = typeof input === 'object' && input !== null && !Array.isArray(input) ? input : null
  const fields = object as Record<string, unknown> | null
  const keys = object ? Object.keys(object) : []
  const only = (...names: string[]) => keys.every((key) => names.includes(key))
  if (toolName === 'bash' && fields && only('command') && typeof fields.command === 'string') {
    return { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: fields.command }) }
  }
  // A Codex patch an import kept under its own name (a delete, a move, several files) goes back as it was
  const patch = typeof input === 'string' ? input : fields && only('input') ? fields.input : undefined
  if (toolName === 'apply_patch' && typeof patch === 'string' && patch.startsWith('*** Begin Patch'))
    return { type: 'custom_tool_call', name: 'apply_patch', input: patch }
  const file = fields && typeof fields.path === 'string' ? fields.path : ''
  const patchable = file.trim() !== '' && !/[\n\r]/.test(file) && file === file.trim()
  if (toolName === 'write' && fields && patchable && only('path', 'content')) {
    const content = fields.content
    // An Add File holds whole lines: content that does not end a line stays a `write`
    if (
      typeof content === 'string' &&
      (content === '' || content.endsWith('\n')) &&
      !content.includes('\r')
    ) {
      const lines = content === '' ? [] : content.slice(0, -1).split('\n')
      return applyPatch(`*** Add File: ${file}\n${lines.map((line) => `+${line}\n`).join('')}`)
    }
  }
  if (toolName === 'edit' && fields && patchable && only('path', 'oldText', 'newText')) {
    const { oldText, newText } = fields
    if (typeof oldText === 'string' && typeof newText === 'string' && oldText !== '') {
      const trailing = oldText.endsWith('\n')
      if (trailing === newText.endsWith('\n') && !/\r/.test(oldText + newText)) {
        const cut = (text: string) => (trailing ? text.slice(0, -1) : text)
        const before = cut(oldText).split('\n')
        const after = newText === '' ? [] : cut(newText).split('\n')
        // Lines both sides share at the start and the end are the hunk's context, as Codex writes them
        let head = 0
        while (head < before.length && head < after.length && before[head] === after[head]) head++
        let tail = 0
        while (
          tail < before.length - head &&
          tail < after.length - head &&
          before[before.length - 1 - tail] === after[after.length - 1 - tail]
        )
          tail++
        const hunk = [
          ...before.slice(0, head).map((line) => ` ${line}`),
          ...before.slice(head, before.length - tail).map((line) => `-${line}`),
          ...after.slice(head, after.length - tail).map((line) => `+${line}`),
          ...before.slice(before.length - tail).map((line) => ` ${line}`),
        ]
        return applyPatch(`*** Update File: ${file}\n@@\n${hunk.map((line) => `${line}\n`).join('')}`)
      }
    }
  }
  return { type: 'function_call', name: toolName, arguments: JSON.stringify(input ?? {}) }
}

function applyPatch(body: string): CodexCall {
  return { type: 'custom_tool_call', name: 'apply_patch', input: `*** Begin Patch\n${body}*** End Patch\n` }
}

interface WrittenSoFar {
  records: RolloutRecord[]
  times: MessageTimes
  /** The kind of each call written, for its output's record. */
  calls: Map<string, CodexCall['type']>
}

/** One replayed message as rollout records: the items Codex sends back, and their UI mirrors. */
function writeRecordsOf(message: ModelMessage, { records, times, calls }: WrittenSoFar): void {
  let timestamp = iso(times.next(message.role))
  const item = (payload: Record<string, unknown>) =>
    records.push({ timestamp, type: 'response_item', payload })
  const mirror = (payload: Record<string, unknown>) => records.push({ timestamp, type: 'event_msg', payload })
  if (message.role === 'user') {
    const parts =
      typeof message.content === 'string'
        ? [{ type: 'text' as const, text: message.content }]
        : message.content
    const content: Record<string, unknown>[] = []
    const texts: string[] = []
    const images: string[] = []
    for (const part of parts) {
      if (part.type === 'text') {
        content.push({ type: 'input_text', text: part.text })
        texts.push(part.text)
      } else if (part.type === 'file' || part.type === 'image') {
        const data = part.type === 'file' ? part.data : part.image
        const mediaType = part.mediaType ?? 'image/png'
        if (typeof data !== 'string' || !mediaType.startsWith('image/')) {
          content.push({ type: 'input_text', text: `[attachment: ${mediaType}]` })
          continue
        }
        const url = /^(data:|https?:)/.test(data) ? data : `data:${mediaType};base64,${data}`
        content.push({ type: 'input_image', image_url: url })
        images.push(url)
      }
    }
    if (content.length === 0) return
    item({ type: 'message', role: 'user', content })
    mirror({ type: 'user_message', message: texts.join('\n'), ...(images.length > 0 ? { images } : {}) })
  } else if (message.role === 'assistant') {
    const parts =
      typeof message.content === 'string'
        ? [{ type: 'text' as const, text: message.content }]
        : message.content
    let text = ''
    const flush = () => {
      if (text === '') return
      item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] })
      mirror({ type: 'agent_message', message: text })
      text = ''
    }
    for (const part of parts) {
      if (part.type === 'text') text += part.text
      else if (part.type === 'tool-call') {
        flush()
        const call = codexCallOf(part.toolName, part.input)
        calls.set(part.toolCallId, call.type)
        item({ ...call, call_id: part.toolCallId })
      }
      // reasoning: left out (the module's comment says why)
    }
    flush()
  } else if (message.role === 'tool') {
    for (const [index, part] of message.content.entries()) {
      if (part.type !== 'tool-result') continue
      if (index > 0) timestamp = iso(times.next('tool'))
      const type =
        calls.get(part.toolCallId) === 'custom_tool_call' ? 'custom_tool_call_output' : 'function_call_output'
      item({ type, call_id: part.toolCallId, output: outputText(part.output) })
    }
  }
}

/** A tool result as the text Codex sends (it takes a string). */
function outputText(output: unknown): string {
  if (typeof output === 'object' && output !== null && 'value' in output) {
    const value = (output as { value: unknown }).value
    return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null')
  }
  return typeof output === 'string' ? output : (JSON.stringify(output) ?? 'null')
}

/**
 * When each replayed message was written: the times of the events they come from, in order by
 * role (a message replay made up, such as a missing result, takes the time before it).
 */
class MessageTimes {
  readonly #queues = new Map<string, { times: number[]; next: number }>()
  #last: number

  constructor(events: readonly SessionEvent[], start: number) {
    this.#last = start
    const compaction = latestCompaction(events)
    const through = compaction ? compaction.data.throughSeq : -1
    const role: Record<string, string> = {
      'user/message': 'user',
      'assistant/message': 'assistant',
      'tool/result': 'tool',
    }
    for (const event of events) {
      const kind = role[event.type]
      if (!kind || event.seq <= through) continue
      const content = (event.data as { content?: unknown[] }).content
      if (kind !== 'tool' && Array.isArray(content) && content.length === 0) continue
      const queue = this.#queues.get(kind) ?? { times: [], next: 0 }
      queue.times.push(event.time)
      this.#queues.set(kind, queue)
    }
  }

  next(role: string): number {
    const queue = this.#queues.get(role)
    const time = queue ? queue.times[queue.next++] : undefined
    if (time !== undefined && time >= this.#last) this.#last = time
    return this.#last
  }
}

function iso(time: number): string {
  return new Date(time).toISOString()
}
