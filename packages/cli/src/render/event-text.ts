// Short human descriptions of events and tool activity, shared by `show` and live turns.

/** `write notes.txt`, `bash ls -la`: a tool call in a few words. */
export function describeToolCall(toolName: string, input: unknown): string {
  if (typeof input === 'object' && input !== null) {
    const record = input as Record<string, unknown>
    for (const key of ['path', 'command', 'pattern', 'file', 'prompt']) {
      const value = record[key]
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
    for (const key of ['message', 'text', 'output', 'value']) {
      if (typeof record[key] === 'string') return record[key] as string
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
  for (const part of content as Record<string, unknown>[]) {
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

/** The text of a `user/message`. */
export function userText(data: unknown): string {
  const content = (data as { content?: unknown }).content
  if (!Array.isArray(content)) return ''
  return (content as Record<string, unknown>[])
    .map((part) =>
      part.type === 'text' && typeof part.text === 'string' ? part.text : `[${String(part.type)}]`,
    )
    .join('')
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
