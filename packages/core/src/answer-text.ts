// The text of a turn's answer, as a program reads it (`tangent run --json`'s `text`, @tangent/sdk's
// `turn.result.text`): what the model said in the turn, without its reasoning or tool calls.

/**
 * The text parts of every `assistant/message` among `events`, each message's joined, and the
 * messages separated by a blank line (a turn that called tools has several: before and after).
 */
export function turnAnswerText(events: readonly { readonly type: string; readonly data: unknown }[]): string {
  const texts: string[] = []
  for (const event of events) {
    if (event.type !== 'assistant/message') continue
    const content = (event.data as { content?: unknown } | null)?.content
    if (!Array.isArray(content)) continue
    let text = ''
    for (const part of content as { type?: unknown; text?: unknown }[])
      if (part?.type === 'text' && typeof part.text === 'string') text += part.text
    if (text !== '') texts.push(text)
  }
  return texts.join('\n\n')
}
