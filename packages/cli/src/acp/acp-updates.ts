// Tangent's log events as ACP `session/update`s (docs/architecture.md §14.2): one mapping for a
// replayed history (session/load) and for a live turn (session/prompt), so both show the same.
import type * as acp from '@agentclientprotocol/sdk/unstable'
import type { SessionEvent } from '../backend.js'

interface AssistantPart {
  type: string
  text?: string
  toolCallId?: string
  toolName?: string
  input?: unknown
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
  const args = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {}
  const main = args.command ?? args.path ?? args.pattern ?? args.prompt
  const text = typeof main === 'string' ? main.replace(/\s+/g, ' ').trim() : ''
  return text === '' ? toolName : `${toolName}: ${text.length > 80 ? `${text.slice(0, 79)}…` : text}`
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

export function toolCallUpdate(
  event: SessionEvent,
  part: AssistantPart,
  status: acp.ToolCallStatus,
): acp.SessionUpdate {
  const toolName = part.toolName ?? 'tool'
  return {
    sessionUpdate: 'tool_call',
    toolCallId: part.toolCallId ?? `seq-${event.seq}`,
    title: toolTitle(toolName, part.input),
    kind: toolKind(toolName),
    status,
    rawInput: part.input as Record<string, unknown>,
    _meta: { tangent: { seq: event.seq, toolName } },
  }
}

export function toolResultUpdate(event: SessionEvent): acp.SessionUpdate {
  const data = event.data as { callId: string; toolName: string; output: unknown; isError: boolean }
  const text = outputText(data.output)
  return {
    sessionUpdate: 'tool_call_update',
    toolCallId: data.callId,
    status: data.isError ? 'failed' : 'completed',
    rawOutput: data.output as Record<string, unknown>,
    ...(text !== '' ? { content: [{ type: 'content', content: { type: 'text', text } }] } : {}),
    _meta: seqMeta(event),
  }
}

/**
 * The updates of one event. `live` leaves out what a live client already has: its own prompt
 * (the user message) and the assistant text streamed as deltas (`streamedText` characters of it).
 */
export function eventUpdates(
  event: SessionEvent,
  options: { live: boolean; streamedText?: number; streamedReasoning?: number } = { live: false },
): acp.SessionUpdate[] {
  switch (event.type) {
    case 'user/message': {
      if (options.live) return []
      const parts = (event.data as { content: { type: string; text?: string; mediaType?: string }[] }).content
      return parts.map((part) => ({
        sessionUpdate: 'user_message_chunk' as const,
        content: {
          type: 'text' as const,
          text: part.type === 'text' ? (part.text ?? '') : `[${part.mediaType ?? 'file'}]`,
        },
        _meta: seqMeta(event),
      }))
    }
    case 'assistant/message': {
      const parts = (event.data as { content: AssistantPart[] }).content
      const updates: acp.SessionUpdate[] = []
      const text = parts
        .filter((part) => part.type === 'text')
        .map((part) => part.text ?? '')
        .join('')
      const reasoning = parts
        .filter((part) => part.type === 'reasoning')
        .map((part) => part.text ?? '')
        .join('')
      // A live client got the text as deltas; a delta a slow connection missed is sent now.
      const restReasoning = reasoning.slice(options.live ? (options.streamedReasoning ?? 0) : 0)
      if (restReasoning !== '')
        updates.push({
          sessionUpdate: 'agent_thought_chunk',
          content: { type: 'text', text: restReasoning },
          _meta: seqMeta(event),
        })
      const restText = text.slice(options.live ? (options.streamedText ?? 0) : 0)
      if (restText !== '')
        updates.push({
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: restText },
          _meta: seqMeta(event),
        })
      for (const part of parts) {
        // Pending until its permission answer (in_progress) or its result (completed, failed).
        if (part.type === 'tool-call') updates.push(toolCallUpdate(event, part, 'pending'))
      }
      return updates
    }
    case 'tool/result':
      return [toolResultUpdate(event)]
    case 'permission/answered': {
      const data = event.data as { callId: string; decision: string }
      if (data.decision === 'deny') return []
      return [
        {
          sessionUpdate: 'tool_call_update',
          toolCallId: data.callId,
          status: 'in_progress',
          _meta: seqMeta(event),
        },
      ]
    }
    case 'turn/end': {
      const data = event.data as { reason: string; error?: string }
      // A live client that cancelled knows why its prompt answered `cancelled`.
      if (data.reason === 'completed' || data.error === undefined) return []
      if (options.live && data.reason === 'aborted') return []
      return [
        {
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: `\n[turn ${data.reason}: ${data.error}]` },
          _meta: seqMeta(event),
        },
      ]
    }
    case 'session/title': {
      const title = (event.data as { title: string }).title
      return [{ sessionUpdate: 'session_info_update', title, _meta: seqMeta(event) }]
    }
    default:
      return []
  }
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
