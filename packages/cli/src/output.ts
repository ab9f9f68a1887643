// Writing results: JSON for scripts (one value, one line) or lines for people.
import type { CliContext } from './context.js'

export function printJson(context: CliContext, value: unknown): void {
  // Two writes, not `${json}\n`: that concatenation copies the whole text once more before it
  // is encoded (for the 3 MB list of 10,000 sessions, ~15 ms of `tangent sessions --json`).
  context.stdout.write(JSON.stringify(value) ?? 'null')
  context.stdout.write('\n')
}

/**
 * About how many characters `printLines` writes at a time. A piece stays under V8's large-object
 * size (128 KB) even as UTF-16 (one ✓ or ← makes all of it two-byte), and its bytes under glibc's
 * mmap threshold, so each piece is allocated where the one before was freed. The 250 KB transcript
 * of a 1k-message session written as one string (500 KB as UTF-16) and one buffer took fresh pages
 * for both, a page fault per 4 KB (docs/benchmarks.md, issue 33).
 */
const printPieceChars = 16 * 1024

export function printLines(context: CliContext, lines: readonly string[]): void {
  let start = 0
  let chars = 0
  for (let i = 0; i < lines.length; i++) {
    chars += lines[i]!.length + 1
    if (chars < printPieceChars && i < lines.length - 1) continue
    // A piece's newline is joined to it: a rope of at most a piece, cheap to flatten.
    context.stdout.write(`${lines.slice(start, i + 1).join('\n')}\n`)
    start = i + 1
    chars = 0
  }
}

/** A side note for people (on stderr, so stdout stays the result). */
export function printNote(context: CliContext, text: string): void {
  context.stderr.write(`${text}\n`)
}
