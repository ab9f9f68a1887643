// Writing results: JSON for scripts (one value, one line) or lines for people.
import type { CliContext } from './context.js'

export function printJson(context: CliContext, value: unknown): void {
  // Two writes, not `${json}\n`: that concatenation copies the whole text once more before it
  // is encoded (for the 3 MB list of 10,000 sessions, ~15 ms of `tangent sessions --json`).
  context.stdout.write(JSON.stringify(value) ?? 'null')
  context.stdout.write('\n')
}

export function printLines(context: CliContext, lines: readonly string[]): void {
  if (lines.length === 0) return
  // The newline apart, as in printJson: `${joined}\n` is a rope that encoding must first copy
  // whole (for the 250 KB transcript of a 1k-message session, ~3 ms of `tangent show`).
  context.stdout.write(lines.join('\n'))
  context.stdout.write('\n')
}

/** A side note for people (on stderr, so stdout stays the result). */
export function printNote(context: CliContext, text: string): void {
  context.stderr.write(`${text}\n`)
}
