// `tangent export --format claude` (docs/architecture.md, "Moving in and out"): a session's linear
// history — its inherited events and its own, through its last completed turn — as a session file
// Claude Code resumes (`claude --resume <uuid>`), in the format Claude Code 2.1.332 writes
// (test/fixtures/imports/claude/): one JSON record per line, messages chained by `parentUuid`, one
// assistant record per content block of an API message (sharing its `message.id`), a step's tool
// results in one user record after them. The inverse of imports/claude.ts.
import {
  type AssistantMessageData,
  type CompactionData,
  type ModelSelectionData,
  type Session,
  type SessionEvent,
  type StepEndData,
  type ToolResultData,
  type UserMessageData,
  unansweredToolCallMessage,
} from '@tangent/core'
import { claudeFolderKey } from '../imports/claude-folder-key.js'
import { claudeMessageId, claudeRecordUuid, claudeSessionIdOf, claudeToolUseId } from './claude-ids.js'
import { claudeToolCallOf } from './claude-tools.js'
import type { ToolExporter } from './export-types.js'

/**
 * The Claude Code version whose format the file follows (the newest the reader was tested on,
 * `testedClaudeCodeVersions.newest`), written in each record's `version` as Claude Code does.
 */
export const claudeExportFormatVersion = '2.1.332'

/** How Claude Code opens a compaction's summary; a summary imported from Claude Code has it already. */
const summaryOpening =
  'This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.'

type Json = Record<string, unknown>

interface OpenStep {
  messageId: string
  records: Json[]
  /** Tangent call id → the tool_use id it was written under, in call order. */
  calls: Map<string, string>
  results: Json[]
  answered: Set<string>
  /** The time of its assistant message, then of its last result. */
  time: number
}

/** Writes the records of one export, in order, each chained to the one before. */
class ClaudeFileWriter {
  readonly lines: string[] = []
  #parent: string | null = null
  #step: OpenStep | null = null
  #model = 'unknown'
  /** A step/start's model (a change inside a turn), for that step only. */
  #stepModel: string | null = null
  readonly #usedToolIds = new Set<string>()

  constructor(
    readonly sessionId: string,
    readonly cwd: string,
  ) {}

  #base(key: string, time: number): Json {
    return {
      parentUuid: this.#parent,
      isSidechain: false,
      uuid: claudeRecordUuid(this.sessionId, key),
      timestamp: timestampOf(time),
      userType: 'external',
      entrypoint: 'cli',
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: claudeExportFormatVersion,
    }
  }

  #write(record: Json): void {
    this.lines.push(JSON.stringify(record))
    if (typeof record.uuid === 'string') this.#parent = record.uuid
  }

  selectModel(data: ModelSelectionData): void {
    this.#model = claudeModelName(data.model)
  }

  /** A step's own model (a change inside a turn) names its message; the selection's otherwise. */
  startStep(data: unknown): void {
    this.closeStep(undefined)
    const model = (data as { model?: unknown } | null)?.model
    this.#stepModel = typeof model === 'string' ? claudeModelName(model.slice(model.indexOf(':') + 1)) : null
  }

  user(event: SessionEvent): void {
    this.closeStep(undefined)
    const { content } = event.data as UserMessageData
    const blocks: Json[] = []
    for (const part of content) {
      if (part.type === 'text') {
        if (part.text.trim() !== '') blocks.push({ type: 'text', text: part.text })
      } else if (part.mediaType.startsWith('image/'))
        blocks.push({
          type: 'image',
          source: { type: 'base64', media_type: part.mediaType, data: part.data },
        })
      else if (part.mediaType === 'application/pdf')
        blocks.push({
          type: 'document',
          source: { type: 'base64', media_type: part.mediaType, data: part.data },
        })
      else blocks.push({ type: 'text', text: `(attached ${part.mediaType})` })
    }
    // The API refuses a message without content (a turn a crash cut before its prompt was logged).
    if (blocks.length === 0) return
    const only = blocks[0]!
    const message =
      blocks.length === 1 && only.type === 'text' ? (only.text as string) : (blocks as unknown[])
    this.#write({
      ...this.#base(`${event.seq}:user`, event.time),
      type: 'user',
      message: { role: 'user', content: message },
    })
  }

  assistant(event: SessionEvent): void {
    this.closeStep(undefined)
    const { content } = event.data as AssistantMessageData
    const step: OpenStep = {
      messageId: claudeMessageId(this.sessionId, String(event.seq)),
      records: [],
      calls: new Map(),
      results: [],
      answered: new Set(),
      time: event.time,
    }
    // Reasoning is left out: the API takes a thinking block only with the signature its model
    // gave it, which Tangent does not keep.
    content.forEach((part, index) => {
      let block: Json
      if (part.type === 'text') {
        if (part.text.trim() === '') return
        block = { type: 'text', text: part.text }
      } else if (part.type === 'tool-call') {
        const id = this.#toolUseId(part.toolCallId)
        step.calls.set(part.toolCallId, id)
        const call = claudeToolCallOf(part.toolName, part.input, this.cwd)
        block = { type: 'tool_use', id, name: call.name, input: call.input }
      } else return
      step.records.push({
        ...this.#base(`${event.seq}:${index}`, event.time),
        type: 'assistant',
        message: {
          id: step.messageId,
          type: 'message',
          role: 'assistant',
          model: this.#stepModel ?? this.#model,
          content: [block],
          stop_reason: null,
          stop_sequence: null,
        },
      })
    })
    this.#step = step
    // The records wait for the step's end (its usage and stop reason); each chains to the one before.
    for (const record of step.records) {
      record.parentUuid = this.#parent
      this.#parent = record.uuid as string
    }
  }

  toolResult(event: SessionEvent): void {
    const step = this.#step
    const data = event.data as ToolResultData
    const id = step?.calls.get(data.callId)
    // A result of no open call is left out, as replay leaves it out (core/replay.ts).
    if (!step || id === undefined || step.answered.has(data.callId)) return
    step.answered.add(data.callId)
    step.results.push(toolResultBlock(id, data.output, data.isError))
    step.time = event.time
  }

  /** Writes the open step: its assistant records (with its usage) and one user record of its results. */
  closeStep(end: StepEndData | undefined): void {
    const step = this.#step
    if (!step) return
    this.#step = null
    const usage = end?.usage ? claudeUsageOf(end.usage) : undefined
    const stopReason = stopReasonOf(end?.finishReason, step.calls.size > 0)
    // The records were chained when the step opened.
    for (const record of step.records) {
      const message = record.message as Json
      message.stop_reason = stopReason
      if (usage) message.usage = usage
      this.lines.push(JSON.stringify(record))
    }
    if (step.calls.size === 0) return
    // Every call gets a result (the API refuses a tool_use without one), as replay gives it.
    for (const [callId, id] of step.calls)
      if (!step.answered.has(callId)) step.results.push(toolResultBlock(id, unansweredToolCallMessage, true))
    this.#write({
      ...this.#base(`${step.messageId}:results`, step.time),
      type: 'user',
      message: { role: 'user', content: step.results },
    })
  }

  /** A compaction: Claude Code's boundary (a new chain) and its summary, which the history after continues. */
  compaction(event: SessionEvent): void {
    this.closeStep(undefined)
    const data = event.data as CompactionData
    const logicalParent = this.#parent
    this.#parent = null
    this.#write({
      ...this.#base(`${event.seq}:compact-boundary`, event.time),
      logicalParentUuid: logicalParent,
      type: 'system',
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      isMeta: false,
      level: 'info',
      compactMetadata: { trigger: data.trigger, preTokens: data.tokensBefore ?? 0 },
    })
    const summary = data.summary.startsWith(summaryOpening)
      ? data.summary
      : `${summaryOpening}\n\nSummary:\n${data.summary}`
    this.#write({
      ...this.#base(`${event.seq}:compact-summary`, event.time),
      type: 'user',
      message: { role: 'user', content: summary },
      isVisibleInTranscriptOnly: true,
      isCompactSummary: true,
    })
  }

  title(title: string): void {
    this.#write({ type: 'custom-title', customTitle: title, sessionId: this.sessionId })
  }

  /** Unique in the file: a provider may reuse ids across steps, the API takes each once. */
  #toolUseId(callId: string): string {
    const base = claudeToolUseId(callId)
    let id = base
    for (let suffix = 2; this.#usedToolIds.has(id); suffix++) id = `${base.slice(0, 58)}_${suffix}`
    this.#usedToolIds.add(id)
    return id
  }
}

function timestampOf(time: number): string {
  return new Date(Number.isFinite(time) ? time : 0).toISOString()
}

/** Claude Code names a model without its provider (`claude-sonnet-4-5`). */
function claudeModelName(model: string): string {
  return model === '' ? 'unknown' : model
}

/** A tool_result block; its content a text, as the API takes it (never empty). */
function toolResultBlock(id: string, output: unknown, isError: boolean): Json {
  const text = typeof output === 'string' ? output : JSON.stringify(output ?? null)
  return {
    type: 'tool_result',
    tool_use_id: id,
    content: text === '' ? '(no output)' : text,
    is_error: isError,
  }
}

/** Tangent's usage counts cached input inside `inputTokens`; the API's `input_tokens` does not. */
function claudeUsageOf(usage: NonNullable<StepEndData['usage']>): Json | undefined {
  if (usage.inputTokens === undefined && usage.outputTokens === undefined) return undefined
  const cached = usage.cachedInputTokens ?? 0
  return {
    input_tokens: Math.max(0, (usage.inputTokens ?? 0) - cached),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
    output_tokens: usage.outputTokens ?? 0,
  }
}

/** The API's stop reason of a step: its calls, else how it finished. */
function stopReasonOf(finishReason: string | undefined, calls: boolean): string {
  if (calls || finishReason === 'tool-calls') return 'tool_use'
  return finishReason === 'length' ? 'max_tokens' : 'end_turn'
}

export const exportClaude: ToolExporter = (session: Session, throughSeq: number) => {
  const sessionId = claudeSessionIdOf(session.id)
  const cwd = session.header.cwd
  const writer = new ClaudeFileWriter(sessionId, cwd)
  const events = session.events.slice(0, throughSeq + 1)
  // A compaction's boundary goes where its summary starts standing in: before the first event after
  // its throughSeq (replay sends the summary, then those events: core/replay.ts).
  const compactions = events
    .filter((event) => event.type === 'context/compacted')
    .sort((a, b) => (a.data as CompactionData).throughSeq - (b.data as CompactionData).throughSeq)
  let nextCompaction = 0
  const placeCompactions = (beforeSeq: number) => {
    for (; nextCompaction < compactions.length; nextCompaction++) {
      const compaction = compactions[nextCompaction]!
      if ((compaction.data as CompactionData).throughSeq >= beforeSeq) return
      writer.compaction(compaction)
    }
  }
  for (const event of events) {
    placeCompactions(event.seq)
    switch (event.type) {
      case 'model/selection':
        writer.selectModel(event.data as ModelSelectionData)
        break
      case 'step/start':
        writer.startStep(event.data)
        break
      case 'user/message':
        writer.user(event)
        break
      case 'assistant/message':
        writer.assistant(event)
        break
      case 'tool/result':
        writer.toolResult(event)
        break
      case 'step/end':
        writer.closeStep(event.data as StepEndData)
        break
      case 'turn/end':
        writer.closeStep(undefined)
        break
      default:
        break
    }
  }
  writer.closeStep(undefined)
  placeCompactions(Number.POSITIVE_INFINITY)
  const title = session.latestOfType('session/title', throughSeq)?.data as { title?: unknown } | undefined
  const titleText = typeof title?.title === 'string' ? title.title : session.header.title
  if (titleText !== undefined && titleText.trim() !== '') writer.title(titleText)
  return {
    lines: writer.lines,
    file: { tool: 'claude', sessionId, path: `projects/${claudeFolderKey(cwd)}/${sessionId}.jsonl` },
  }
}
