// Every tool result fits in the session log (docs/architecture.md §4: a line holds at most
// 64 MiB): a longer output, from any tool, is cut to its beginning and end with a note.

/** Characters a tool result keeps: escaped as JSON (6 bytes a character at worst) far under 64 MiB. */
export const maxToolOutputChars = 1_000_000

export function capToolOutput(output: string, maxChars: number = maxToolOutputChars): string {
  if (output.length <= maxChars) return output
  const half = Math.floor(maxChars / 2)
  const omitted = output.length - 2 * half
  return `${output.slice(0, half)}\n[… output cut to fit the session log: ${omitted} of ${output.length} characters omitted …]\n${output.slice(output.length - half)}`
}
