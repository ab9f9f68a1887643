// Replay: one pure function from a log (or any prefix of one) to the provider
// transcript. Unknown and log-only events are ignored; a prefix that ends with
// unanswered tool calls gets synthetic error results so the transcript stays valid.
import type {
  AssistantModelMessage,
  ModelMessage,
  ToolModelMessage,
  ToolResultPart,
  UserModelMessage,
} from 'ai'
import type {
  AssistantMessageData,
  CompactionData,
  ModelSelectionData,
  SessionEvent,
  ToolResultData,
  UserMessageData,
} from './events.js'

export const unansweredToolCallMessage = 'Tool call was not answered (the turn ended before it ran).'

/** How a compaction's summary opens the replayed history (docs/architecture.md §12). */
export function compactionPreamble(summary: string): string {
  return `[The conversation before this point was summarised to fit the context window.]\n\n${summary}`
}

/**
 * The latest `context/compacted` of a log, or null. Replay sends its summary in place of
 * every event up to its `throughSeq`; a fork before it never sees it (its prefix ends earlier).
 */
export function latestCompaction(
  events: readonly SessionEvent[],
): SessionEvent<'context/compacted', CompactionData> | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'context/compacted') return event as SessionEvent<'context/compacted', CompactionData>
  }
  return null
}

export function toModelMessages(events: readonly SessionEvent[]): ModelMessage[] {
  const compaction = latestCompaction(events)
  if (!compaction) return replayEvents(events)
  const through = compaction.data.throughSeq
  const rest = replayEvents(events.filter((event) => event.seq > through && event.seq !== compaction.seq))
  const summary = { type: 'text' as const, text: compactionPreamble(compaction.data.summary) }
  const first = rest[0]
  // One user message opens the history: the summary joins the first user message when there is one.
  if (first?.role === 'user' && typeof first.content !== 'string') {
    return [{ ...first, content: [summary, ...first.content] }, ...rest.slice(1)]
  }
  return [{ role: 'user', content: [summary] }, ...rest]
}

/**
 * How a note from Tangent opens (a kept branch's summary: docs/architecture.md §13.4). Replay
 * sends each note as a text part of its own before the user's words, so a reader of the message
 * (the demo model) can tell the user's words from what Tangent told the model.
 */
export const replayNoteOpening = '[Tangent: '

/** Whether a text part of a replayed user message is a note from Tangent, not the user's words. */
export function isReplayNote(text: string): boolean {
  return text.startsWith(replayNoteOpening)
}

/**
 * Events that tell the model something between turns: a kept branch (`branch/kept`, its
 * `summary`, which opens with `replayNoteOpening`) joins the next user message as a part of its
 * own, before the user's words, so the next turn knows what the branch did. The undo of a keep's
 * restore (`files/restored` with `undoOf` = the keep's `restoreSeq`) is told too: in place of the
 * keep's summary when the model has not read it yet, else as a note of its own. An imported
 * branch summary (`import/branch-summary`, pi's) is a note the same way.
 */
class ReplayNotes {
  #pending: { text: string; restoreSeq?: number }[] = []
  /** Keeps whose files came through a restore, by that restore's seq. */
  readonly #keeps = new Map<number, string>()

  see(event: SessionEvent): void {
    const data = (event.data ?? {}) as Record<string, unknown>
    if (event.type === 'branch/kept') {
      const summary = typeof data.summary === 'string' && data.summary !== '' ? data.summary : null
      const restoreSeq = typeof data.restoreSeq === 'number' ? data.restoreSeq : undefined
      if (restoreSeq !== undefined) this.#keeps.set(restoreSeq, keptBranchName(data))
      if (summary !== null)
        this.#pending.push({ text: summary, ...(restoreSeq !== undefined ? { restoreSeq } : {}) })
      return
    }
    if (event.type === 'import/branch-summary') {
      // A summary of another branch an imported session came back from (pi): told as the source did.
      const text = typeof data.text === 'string' ? data.text.trim() : ''
      if (text !== '')
        this.#pending.push({
          text: `${replayNoteOpening}a summary of another branch of this conversation, which it came back from.]\n${text}`,
        })
      return
    }
    if (event.type !== 'files/restored' || typeof data.undoOf !== 'number') return
    const name = this.#keeps.get(data.undoOf)
    if (name === undefined) return
    const unread = this.#pending.findIndex((note) => note.restoreSeq === data.undoOf)
    if (unread >= 0) this.#pending.splice(unread, 1)
    const text =
      unread >= 0
        ? `${replayNoteOpening}${name} was kept, then the keep was undone.]\nIts file changes were taken back out of this directory: none of them are here.`
        : `${replayNoteOpening}the keep of ${name} was undone.]\nIts file changes were taken back out of this directory: they are no longer here.`
    this.#pending.push({ text })
  }

  /** The notes the next user message carries (none after this). */
  take(): string[] {
    const texts = this.#pending.map((note) => note.text)
    this.#pending = []
    return texts
  }
}

function keptBranchName(data: Record<string, unknown>): string {
  const label = typeof data.label === 'string' && data.label !== '' ? `${data.label} ` : ''
  const title = typeof data.title === 'string' && data.title !== '' ? data.title : String(data.sessionId)
  return `branch ${label}"${title}" (${String(data.sessionId)})`
}

function replayEvents(events: readonly SessionEvent[]): ModelMessage[] {
  const messages: ModelMessage[] = []
  const notes = new ReplayNotes()
  // The calls of the current step without a result yet, by id (in call order; a repeated id
  // queues its names): a step of many thousands of calls is answered in linear time.
  let pending = new Map<string, string[]>()
  let toolMessage: ToolModelMessage | null = null

  const closePendingCalls = () => {
    if (pending.size > 0) {
      toolMessage ??= pushTool(messages)
      for (const [toolCallId, names] of pending)
        for (const toolName of names)
          toolMessage.content.push(resultPart(toolCallId, toolName, unansweredToolCallMessage, true))
    }
    pending = new Map()
    toolMessage = null
  }

  for (const event of events) {
    switch (event.type) {
      case 'user/message': {
        closePendingCalls()
        const { content } = event.data as UserMessageData
        // Crash repair closes a turn cut right after turn/start with an empty user
        // message; providers reject empty content, so it is left out like an empty assistant one.
        if (content.length === 0) break
        const message: UserModelMessage = {
          role: 'user',
          content: [
            ...notes.take().map((text) => ({ type: 'text' as const, text })),
            ...content.map((part) =>
              part.type === 'text'
                ? { type: 'text' as const, text: part.text }
                : { type: 'file' as const, mediaType: part.mediaType, data: part.data },
            ),
          ],
        }
        messages.push(message)
        break
      }
      case 'assistant/message': {
        closePendingCalls()
        const { content } = event.data as AssistantMessageData
        if (content.length === 0) break
        const message: AssistantModelMessage = {
          role: 'assistant',
          content: content.map((part) => {
            if (part.type === 'tool-call') {
              const names = pending.get(part.toolCallId)
              if (names) names.push(part.toolName)
              else pending.set(part.toolCallId, [part.toolName])
              return {
                type: 'tool-call' as const,
                toolCallId: part.toolCallId,
                toolName: part.toolName,
                input: part.input,
              }
            }
            return { type: part.type, text: part.text }
          }),
        }
        messages.push(message)
        break
      }
      case 'tool/result': {
        const data = event.data as ToolResultData
        const names = pending.get(data.callId)
        if (!names) break
        names.shift()
        if (names.length === 0) pending.delete(data.callId)
        toolMessage ??= pushTool(messages)
        toolMessage.content.push(resultPart(data.callId, data.toolName, data.output, data.isError))
        break
      }
      case 'step/end':
      case 'turn/end':
        closePendingCalls()
        break
      default:
        notes.see(event)
        break
    }
  }
  closePendingCalls()
  const last = notes.take()
  if (last.length > 0)
    messages.push({ role: 'user', content: last.map((text) => ({ type: 'text' as const, text })) })
  return messages
}

function pushTool(messages: ModelMessage[]): ToolModelMessage {
  const message: ToolModelMessage = { role: 'tool', content: [] }
  messages.push(message)
  return message
}

function resultPart(toolCallId: string, toolName: string, output: unknown, isError: boolean): ToolResultPart {
  if (typeof output === 'string') {
    return {
      type: 'tool-result',
      toolCallId,
      toolName,
      output: { type: isError ? 'error-text' : 'text', value: output },
    }
  }
  const value = (output ?? null) as never
  return {
    type: 'tool-result',
    toolCallId,
    toolName,
    output: { type: isError ? 'error-json' : 'json', value },
  }
}

/** The latest `model/selection` in the log, or null when none was made. */
export function currentModel(events: readonly SessionEvent[]): ModelSelectionData | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'model/selection') return event.data as ModelSelectionData
  }
  return null
}
