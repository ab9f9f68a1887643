// One path of a Tangent session tree as pi session entries (pi-coding-agent 0.73.1, format 3;
// issue 31): what Tangent's replay (core/replay.ts) gives a model becomes the messages pi's
// `buildSessionContext` gives its model, in order — user and assistant messages, one `toolResult`
// per result, model and thinking-level changes, a compaction, branch summaries. Pure. An entry's id
// is a hash of the session that wrote its event and the event's seq, so the paths of one tree
// share the entries of their common prefix and a re-export writes the same ids.
import { type SessionEvent, unansweredToolCallMessage } from '@tangent/core'
import { exportPiToolCall } from './pi-export-tools.js'

/** One line of a pi session file after its header: a tree entry. */
export interface PiEntry {
  type: string
  id: string
  parentId: string | null
  timestamp: string
  [field: string]: unknown
}

export interface PiPathInput {
  /** The path's events, inherited ones first; those through `throughSeq` are exported. */
  events: readonly SessionEvent[]
  throughSeq: number
  /** The id of the session that wrote the event at `seq` (a fork's inherited events are its parent's). */
  ownerOf(seq: number): string
  /** The model of a log with no `model/selection` (Tangent's default). */
  defaultModel: { provider: string; model: string }
}

/** pi's thinking levels (a Tangent `reasoningEffort` of the same name is one). */
const piThinkingLevels = new Set(['off', 'minimal', 'low', 'medium', 'high', 'xhigh'])

/** A stable entry id: 16 hex digits of SHA-256 over the writing session, the seq and the entry's index there. */
export function piEntryId(sessionId: string, seq: number, index: number): string {
  // node:crypto on first use, not at import (start-up: docs/architecture.md §9).
  return process
    .getBuiltinModule('node:crypto')
    .createHash('sha256')
    .update(`${sessionId}\0${seq}\0${index}`)
    .digest('hex')
    .slice(0, 16)
}

/** pi's `api` of a provider's messages (pi-ai's names; an unknown provider speaks OpenAI's completions). */
export function piApiOf(provider: string): string {
  switch (provider) {
    case 'anthropic':
      return 'anthropic-messages'
    case 'openai':
      return 'openai-responses'
    case 'google':
      return 'google-generative-ai'
    default:
      return 'openai-completions'
  }
}

interface Part {
  type: string
  text?: string
  mediaType?: string
  data?: string
  toolCallId?: string
  toolName?: string
  input?: unknown
}

/** The entries of one path, in order; the first has `parentId` null, each other the one before. */
export function piEntriesOfPath(input: PiPathInput): PiEntry[] {
  const entries: PiEntry[] = []
  /** The seq of the event each entry came from (parallel to `entries`). */
  const seqs: number[] = []
  let model = input.defaultModel
  let thinkingLevel: string | undefined
  let stepModel = model
  let pending: { id: string; piName: string }[] = []
  /** The assistant message of the open step: its step's end gives it usage and a stop reason. */
  let stepMessage: Record<string, unknown> | null = null
  let seq = -1
  let time = 0
  let produced = 0

  const push = (type: string, fields: Record<string, unknown>): PiEntry => {
    const entry: PiEntry = {
      type,
      id: piEntryId(input.ownerOf(seq), seq, produced++),
      parentId: entries.at(-1)?.id ?? null,
      timestamp: new Date(time).toISOString(),
      ...fields,
    }
    entries.push(entry)
    seqs.push(seq)
    return entry
  }
  // Tangent's replay answers a call left open with this error result; so does the export.
  const closePending = () => {
    for (const call of pending)
      push('message', {
        message: {
          role: 'toolResult',
          toolCallId: call.id,
          toolName: call.piName,
          content: [{ type: 'text', text: unansweredToolCallMessage }],
          isError: true,
          timestamp: time,
        },
      })
    pending = []
  }

  const last = Math.min(input.throughSeq, input.events.length - 1)
  for (let at = 0; at <= last; at++) {
    const event = input.events[at]!
    seq = event.seq
    produced = 0
    // A time a Date cannot hold (a loaded log is not schema-checked) is written as the epoch.
    time = Number.isFinite(event.time) && Math.abs(event.time) <= 8.64e15 ? event.time : 0
    const data = (event.data ?? {}) as Record<string, unknown>
    switch (event.type) {
      case 'model/selection': {
        if (typeof data.provider !== 'string' || typeof data.model !== 'string') break
        model = { provider: data.provider, model: data.model }
        stepModel = model
        push('model_change', { provider: model.provider, modelId: model.model })
        const effort = data.reasoningEffort
        if (typeof effort === 'string' && piThinkingLevels.has(effort) && effort !== thinkingLevel) {
          thinkingLevel = effort
          push('thinking_level_change', { thinkingLevel: effort })
        }
        break
      }
      case 'user/message': {
        closePending()
        const content = userContent(data.content as Part[] | undefined)
        // Replay leaves out an empty user message (a turn cut right after it began); so does pi's file.
        if (content.length === 0) break
        push('message', { message: { role: 'user', content, timestamp: time } })
        break
      }
      case 'step/start':
        stepModel = typeof data.model === 'string' ? (modelOf(data.model) ?? model) : model
        break
      case 'assistant/message': {
        closePending()
        stepMessage = null
        const parts = (data.content as Part[] | undefined) ?? []
        if (parts.length === 0) break
        const content: unknown[] = []
        for (const part of parts) {
          if (part.type === 'text') content.push({ type: 'text', text: String(part.text ?? '') })
          else if (part.type === 'reasoning')
            content.push({ type: 'thinking', thinking: String(part.text ?? '') })
          else if (part.type === 'tool-call' && typeof part.toolCallId === 'string') {
            const call = exportPiToolCall(String(part.toolName ?? 'unknown'), part.input)
            content.push({
              type: 'toolCall',
              id: part.toolCallId,
              name: call.name,
              arguments: call.arguments,
            })
            pending.push({ id: part.toolCallId, piName: call.name })
          }
        }
        stepMessage = {
          role: 'assistant',
          content,
          api: piApiOf(stepModel.provider),
          provider: stepModel.provider,
          model: stepModel.model,
          usage: piUsage(undefined),
          // A step Tangent's replay sends is never `error`/`aborted` here: pi's context would drop it.
          stopReason: pending.length > 0 ? 'toolUse' : 'stop',
          timestamp: time,
        }
        push('message', { message: stepMessage })
        break
      }
      case 'tool/result': {
        const index = pending.findIndex((call) => call.id === data.callId)
        // A result with no open call: replay sends none, and neither does pi's file.
        if (index < 0) break
        const call = pending.splice(index, 1)[0]!
        const output = data.output
        const text = typeof output === 'string' ? output : (JSON.stringify(output ?? null) ?? 'null')
        push('message', {
          message: {
            role: 'toolResult',
            toolCallId: call.id,
            toolName: call.piName,
            content: [{ type: 'text', text }],
            isError: data.isError === true,
            timestamp: time,
          },
        })
        break
      }
      case 'step/end':
        closePending()
        if (stepMessage) {
          stepMessage.usage = piUsage(data.usage)
          if (data.finishReason === 'length' && stepMessage.stopReason === 'stop')
            stepMessage.stopReason = 'length'
        }
        stepMessage = null
        stepModel = model
        break
      case 'turn/end':
        closePending()
        stepMessage = null
        break
      case 'context/compacted': {
        if (typeof data.summary !== 'string') break
        const through = typeof data.throughSeq === 'number' ? data.throughSeq : seq
        // pi keeps the entries from `firstKeptEntryId` to the compaction, as Tangent keeps the events after `throughSeq`.
        const kept = seqs.findIndex((entrySeq) => entrySeq > through)
        const entry = push('compaction', {
          summary: data.summary,
          firstKeptEntryId: '',
          tokensBefore: typeof data.tokensBefore === 'number' ? data.tokensBefore : 0,
        })
        // Nothing kept: its own id, which pi finds before no entry of the path.
        entry.firstKeptEntryId = kept >= 0 ? entries[kept]!.id : entry.id
        break
      }
      case 'import/branch-summary':
      case 'branch/kept': {
        // A summary of another branch (pi's own, imported; or a branch Tangent kept): pi tells it the same way.
        const summary = event.type === 'branch/kept' ? data.summary : data.text
        if (typeof summary !== 'string' || summary.trim() === '') break
        push('branch_summary', { fromId: entries.at(-1)?.id ?? 'root', summary })
        break
      }
      case 'import/unknown': {
        // pi records an import kept whole that pi reads again: a thinking level, an extension's state.
        const raw = piRecordToRestore(data.raw)
        if (raw) {
          const { type, id: _id, parentId: _parentId, timestamp: _timestamp, ...fields } = raw
          push(String(type), fields)
        }
        break
      }
      default:
        // Titles, snapshots, permissions, instructions, modes, plugin events: nothing pi reads.
        break
    }
  }
  closePending()
  return entries
}

/** A pi record an import kept as `import/unknown` that pi reads again as it was, or null. */
function piRecordToRestore(raw: unknown): Record<string, unknown> | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null
  const record = raw as Record<string, unknown>
  if (record.type === 'thinking_level_change')
    return typeof record.thinkingLevel === 'string' && piThinkingLevels.has(record.thinkingLevel)
      ? record
      : null
  if (record.type === 'custom') return typeof record.customType === 'string' ? record : null
  return null
}

/** A user message's content as pi's blocks: text and images; another file is named, not carried. */
function userContent(parts: Part[] | undefined): unknown[] {
  const content: unknown[] = []
  for (const part of parts ?? []) {
    if (part.type === 'text') content.push({ type: 'text', text: String(part.text ?? '') })
    else if (part.type === 'file' && typeof part.data === 'string') {
      const mediaType = String(part.mediaType ?? 'application/octet-stream')
      content.push(
        mediaType.startsWith('image/')
          ? { type: 'image', data: part.data, mimeType: mediaType }
          : { type: 'text', text: `[attached ${mediaType}, not exported]` },
      )
    }
  }
  return content
}

/** pi's usage: `input` without the cache reads (pi-ai counts them apart), no cost known. */
function piUsage(usage: unknown): Record<string, unknown> {
  const read = (key: string) => {
    const value =
      typeof usage === 'object' && usage !== null ? (usage as Record<string, unknown>)[key] : undefined
    return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0
  }
  const cacheRead = read('cachedInputTokens')
  const input = Math.max(0, read('inputTokens') - cacheRead)
  const output = read('outputTokens')
  return {
    input,
    output,
    cacheRead,
    cacheWrite: 0,
    totalTokens: input + output + cacheRead,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  }
}

function modelOf(id: string): { provider: string; model: string } | null {
  const colon = id.indexOf(':')
  return colon > 0 && colon < id.length - 1
    ? { provider: id.slice(0, colon), model: id.slice(colon + 1) }
    : null
}
