// Tangent's log events as ACP `session/update`s (docs/architecture.md §14.2): one mapping for a
// replayed history (session/load) and for a live turn (session/prompt), so both show the same.
// Every update made from a logged event carries `_meta.tangent.seq` (the seq a client can fork
// at); text streamed live carries `_meta.tangent.stepSeq` (the `step/start` its message follows)
// and the message's `messageId`, which the message's other chunks share, live or replayed.
import path from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import type { SessionEvent, TurnDelta } from '../backend.js'
import { modeUpdateOfEvent } from './acp-modes.js'

interface AssistantPart {
  type: string
  text?: string
  toolCallId?: string
  toolName?: string
  input?: unknown
}

interface ToolResult {
  callId: string
  toolName: string
  output: unknown
  isError: boolean
  diff?: { path: string; oldText: string | null; newText: string }
}

/** `_meta` every update of a log event carries: the seq a client can fork at (`_meta.tangent.atSeq`). */
function seqMeta(event: SessionEvent): { tangent: { seq: number } } {
  return { tangent: { seq: event.seq } }
}

export function toolKind(toolName: string): acp.ToolKind {
  switch (toolName) {
    case 'read':
      return 'read'
    case 'write':
    case 'edit':
      return 'edit'
    case 'list':
    case 'grep':
      return 'search'
    case 'bash':
      return 'execute'
    case 'task':
      return 'think'
    default:
      return 'other'
  }
}

/** A short title for a tool call: the tool and its main argument. */
export function toolTitle(toolName: string, input: unknown): string {
  const args = inputRecord(input)
  const main = args.command ?? args.path ?? args.pattern ?? args.prompt
  const text = typeof main === 'string' ? main.replace(/\s+/g, ' ').trim() : ''
  return text === '' ? toolName : `${toolName}: ${text.length > 80 ? `${text.slice(0, 79)}…` : text}`
}

function inputRecord(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : {}
}

/** The file a file tool names, absolute (for `locations` and diffs); null for other tools. */
export function toolPath(toolName: string, input: unknown, cwd: string): string | null {
  if (!['read', 'write', 'edit', 'list', 'grep'].includes(toolName)) return null
  const named = inputRecord(input).path
  const relative = typeof named === 'string' && named !== '' ? named : '.'
  return path.resolve(cwd, relative)
}

/** Where a call works, for an editor's follow-along: its file, at the line a `read` starts from. */
export function toolLocations(toolName: string, input: unknown, cwd: string): acp.ToolCallLocation[] {
  const file = toolPath(toolName, input, cwd)
  if (file === null) return []
  const offset = inputRecord(input).offset
  return [{ path: file, ...(toolName === 'read' && typeof offset === 'number' ? { line: offset } : {}) }]
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output
  if (output === undefined || output === null) return ''
  try {
    return JSON.stringify(output, null, 2)
  } catch {
    return String(output)
  }
}

/** The message a chunk belongs to: one per user message and per step's assistant message. */
export function messageId(sessionId: string, seq: number): string {
  return `${sessionId}:${seq}`
}

export function toolCallUpdate(
  event: SessionEvent,
  part: AssistantPart,
  status: acp.ToolCallStatus,
  cwd: string,
): acp.SessionUpdate {
  const toolName = part.toolName ?? 'tool'
  const locations = toolLocations(toolName, part.input, cwd)
  return {
    sessionUpdate: 'tool_call',
    toolCallId: part.toolCallId ?? `seq-${event.seq}`,
    title: toolTitle(toolName, part.input),
    kind: toolKind(toolName),
    status,
    rawInput: inputRecord(part.input),
    ...(locations.length > 0 ? { locations } : {}),
    _meta: { tangent: { seq: event.seq, toolName } },
  }
}

export function toolResultUpdate(event: SessionEvent, cwd: string): acp.SessionUpdate {
  const data = event.data as ToolResult
  const text = outputText(data.output)
  const content: acp.ToolCallContent[] = []
  // The change a write or edit made, whole file before and after (`tool/result.diff`).
  if (data.diff) {
    content.push({
      type: 'diff',
      path: path.resolve(cwd, data.diff.path),
      oldText: data.diff.oldText,
      newText: data.diff.newText,
    })
  }
  if (text !== '') content.push({ type: 'content', content: { type: 'text', text } })
  return {
    sessionUpdate: 'tool_call_update',
    toolCallId: data.callId,
    status: data.isError ? 'failed' : 'completed',
    rawOutput: { output: data.output ?? null, isError: data.isError },
    ...(content.length > 0 ? { content } : {}),
    ...(data.diff ? { locations: [{ path: path.resolve(cwd, data.diff.path) }] } : {}),
    _meta: seqMeta(event),
  }
}

/**
 * A session's events as updates, in order. One per stream: it remembers the step a message
 * belongs to (its `messageId`) and, live, how much of the message already went out as deltas.
 */
export class UpdateMapper {
  readonly #sessionId: string
  readonly #cwd: string
  readonly #live: boolean
  #stepSeq: number | null = null
  #streamedText = 0
  #streamedReasoning = 0

  /** `live` leaves out what a live client already has: its own prompt and the streamed text. */
  constructor(options: { sessionId: string; cwd: string; live: boolean }) {
    this.#sessionId = options.sessionId
    this.#cwd = options.cwd
    this.#live = options.live
  }

  /** A live delta's update, or null for those an editor has no use for (tool input, retries). */
  delta(delta: TurnDelta): acp.SessionUpdate | null {
    const stepMeta = this.#stepSeq === null ? {} : { _meta: { tangent: { stepSeq: this.#stepSeq } } }
    const id = this.#stepSeq === null ? {} : { messageId: messageId(this.#sessionId, this.#stepSeq) }
    switch (delta.kind) {
      case 'text':
        this.#streamedText += delta.text.length
        return {
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: delta.text },
          ...id,
          ...stepMeta,
        }
      case 'reasoning':
        this.#streamedReasoning += delta.text.length
        return {
          sessionUpdate: 'agent_thought_chunk',
          content: { type: 'text', text: delta.text },
          ...id,
          ...stepMeta,
        }
      case 'tool-start':
        // Past the policy and any approval: the call runs now.
        if (delta.toolCallId === undefined) return null
        return {
          sessionUpdate: 'tool_call_update',
          toolCallId: delta.toolCallId,
          status: 'in_progress',
          ...stepMeta,
        }
      default:
        return null
    }
  }

  event(event: SessionEvent): acp.SessionUpdate[] {
    switch (event.type) {
      case 'step/start':
        this.#stepSeq = event.seq
        this.#streamedText = 0
        this.#streamedReasoning = 0
        return []
      case 'user/message': {
        if (this.#live) return []
        const parts = (
          event.data as { content: { type: string; text?: string; mediaType?: string; data?: string }[] }
        ).content
        const id = messageId(this.#sessionId, event.seq)
        return parts.map((part) => ({
          sessionUpdate: 'user_message_chunk' as const,
          content: userContent(part),
          messageId: id,
          _meta: seqMeta(event),
        }))
      }
      case 'assistant/message':
        return this.#assistantMessage(event)
      case 'tool/result':
        return [toolResultUpdate(event, this.#cwd)]
      case 'session/mode': {
        // A switch made elsewhere (the CLI, the web) while this prompt runs, or in a replay.
        const update = modeUpdateOfEvent(event)
        return update ? [{ ...update, _meta: seqMeta(event) }] : []
      }
      case 'session/title': {
        const title = (event.data as { title: string }).title
        return [
          { sessionUpdate: 'session_info_update', title: title === '' ? null : title, _meta: seqMeta(event) },
        ]
      }
      default:
        // `turn/end` included: a failed turn is reported once, as the prompt's error (live); a
        // replay shows the messages and calls it made (docs/architecture.md §14.2).
        return []
    }
  }

  #assistantMessage(event: SessionEvent): acp.SessionUpdate[] {
    const parts = (event.data as { content: AssistantPart[] }).content
    const updates: acp.SessionUpdate[] = []
    const id = messageId(this.#sessionId, this.#stepSeq ?? event.seq)
    const joined = (type: string) =>
      parts
        .filter((part) => part.type === type)
        .map((part) => part.text ?? '')
        .join('')
    // A live client got the text as deltas; a delta a slow connection missed is sent now.
    const restReasoning = joined('reasoning').slice(this.#live ? this.#streamedReasoning : 0)
    if (restReasoning !== '')
      updates.push({
        sessionUpdate: 'agent_thought_chunk',
        content: { type: 'text', text: restReasoning },
        messageId: id,
        _meta: seqMeta(event),
      })
    const restText = joined('text').slice(this.#live ? this.#streamedText : 0)
    if (restText !== '')
      updates.push({
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: restText },
        messageId: id,
        _meta: seqMeta(event),
      })
    this.#streamedText = 0
    this.#streamedReasoning = 0
    for (const part of parts) {
      // Pending until it starts (in_progress, live) or its result (completed, failed).
      if (part.type === 'tool-call') updates.push(toolCallUpdate(event, part, 'pending', this.#cwd))
    }
    return updates
  }
}

/** A user message part as an ACP content block: its text, or the image it carried. */
function userContent(part: {
  type: string
  text?: string
  mediaType?: string
  data?: string
}): acp.ContentBlock {
  if (part.type === 'text') return { type: 'text', text: part.text ?? '' }
  if (part.mediaType?.startsWith('image/') && typeof part.data === 'string')
    return { type: 'image', mimeType: part.mediaType, data: part.data }
  return { type: 'text', text: `[${part.mediaType ?? 'file'}]` }
}

/** A turn's end reason as ACP's stop reason; `error` has none (the prompt answers an error instead). */
export function stopReason(reason: string): acp.StopReason | null {
  switch (reason) {
    case 'completed':
      return 'end_turn'
    case 'aborted':
    case 'interrupted':
      return 'cancelled'
    case 'max-steps':
      return 'max_turn_requests'
    default:
      return null
  }
}
