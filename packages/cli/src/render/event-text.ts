// Short human descriptions of events and tool activity, shared by `show` and live turns.
// `tangent show` runs these once per event in a fresh process, interpreted at first: the loops
// are indexed (for-of allocates an iterator result per element there) over constant key lists.

/** The input fields that name what a tool call works on, in the order they are looked for. */
const subjectKeys = ['path', 'command', 'pattern', 'file', 'prompt']
/** The fields of a tool's output object that hold its text. */
const outputTextKeys = ['message', 'text', 'output', 'value']

/** `write notes.txt`, `bash ls -la`: a tool call in a few words. */
export function describeToolCall(toolName: string, input: unknown): string {
  if (typeof input === 'object' && input !== null) {
    const record = input as Record<string, unknown>
    for (let i = 0; i < subjectKeys.length; i++) {
      const value = record[subjectKeys[i]!]
      if (typeof value === 'string') return `${toolName} ${value}`
    }
  }
  return `${toolName} ${JSON.stringify(input ?? {})}`
}

/** A tool's output as text (outputs may be strings or JSON values). */
export function outputText(output: unknown): string {
  if (typeof output === 'string') return output
  if (typeof output === 'object' && output !== null) {
    const record = output as Record<string, unknown>
    for (let i = 0; i < outputTextKeys.length; i++) {
      const value = record[outputTextKeys[i]!]
      if (typeof value === 'string') return value
    }
  }
  return JSON.stringify(output)
}

export interface AssistantContent {
  text: string
  calls: { toolCallId: string; toolName: string; input: unknown }[]
}

/** Splits an `assistant/message`'s parts into its text and its tool calls. */
export function assistantContent(data: unknown): AssistantContent {
  const content = (data as { content?: unknown }).content
  const result: AssistantContent = { text: '', calls: [] }
  if (!Array.isArray(content)) return result
  const parts = content as Record<string, unknown>[]
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    if (part.type === 'text' && typeof part.text === 'string') result.text += part.text
    if (part.type === 'tool-call') {
      result.calls.push({
        toolCallId: String(part.toolCallId),
        toolName: String(part.toolName),
        input: part.input,
      })
    }
  }
  return result
}

/** The text of a `user/message`; each image (file part) as `[image/png]`, after it. */
export function userText(data: unknown): string {
  const content = (data as { content?: unknown }).content
  if (!Array.isArray(content)) return ''
  return (content as Record<string, unknown>[])
    .map((part) =>
      part.type === 'text' && typeof part.text === 'string'
        ? part.text
        : part.type === 'file' && typeof part.mediaType === 'string'
          ? `[${part.mediaType}]`
          : `[${String(part.type)}]`,
    )
    .join(' ')
}

/**
 * One line for the context events (docs/architecture.md §12): which instruction files the
 * model is sent, a compaction and what it covers, a compaction that failed. Null for others.
 */
export function describeContextEvent(type: string, data: unknown): string | null {
  const record = (data ?? {}) as Record<string, unknown>
  switch (type) {
    case 'context/instructions': {
      const files = Array.isArray(record.files) ? (record.files as { path?: unknown }[]) : []
      return files.length === 0
        ? 'Instructions: none (the files are gone)'
        : `Instructions: ${files.map((file) => String(file.path)).join(', ')}`
    }
    case 'context/compacted': {
      const count = Number(record.throughSeq) + 1
      const tokens =
        typeof record.tokensBefore === 'number' && typeof record.tokensAfter === 'number'
          ? `, ~${record.tokensBefore} → ~${record.tokensAfter} tokens`
          : ''
      return `Conversation compacted: ${count} events summarised (${String(record.trigger)}${tokens})`
    }
    case 'context/compaction-failed':
      return `Compaction failed, the turn went on with the whole history: ${String(record.message)}`
    default:
      return null
  }
}
