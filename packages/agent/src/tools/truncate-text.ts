// Caps text handed to the model, saying what was cut so the model can narrow its request.

/** Keeps the first and last parts of `text` when it is longer than `maxChars`. */
export function truncateMiddle(text: string, maxChars: number, hint: string): string {
  if (text.length <= maxChars) return text
  const half = Math.floor(maxChars / 2)
  const omitted = text.length - 2 * half
  return `${text.slice(0, half)}\n[… ${omitted} characters omitted; ${hint} …]\n${text.slice(text.length - half)}`
}
