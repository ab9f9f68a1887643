// Writing results: JSON for scripts (one value, one line) or lines for people.
import type { CliContext } from './context.js'

export function printJson(context: CliContext, value: unknown): void {
  context.stdout.write(`${JSON.stringify(value)}\n`)
}

export function printLines(context: CliContext, lines: readonly string[]): void {
  if (lines.length > 0) context.stdout.write(`${lines.join('\n')}\n`)
}

/** A side note for people (on stderr, so stdout stays the result). */
export function printNote(context: CliContext, text: string): void {
  context.stderr.write(`${text}\n`)
}
