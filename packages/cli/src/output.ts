// Writing results: JSON for scripts (one value, one line) or lines for people.
import type { CliContext } from './context.js'

/**
 * Items of a JSON array `printJson` writes at a time: a piece of the list of 10,000 sessions
 * (~350 bytes an item) stays under V8's large-object size (128 KB), so each piece is allocated
 * where the one before was freed; the whole 3.5 MB text as one string, then one buffer, took fresh
 * pages for both (docs/benchmarks.md, issue 33; the same reason as `printPieceLines` below).
 */
const printPieceItems = 256

export function printJson(context: CliContext, value: unknown): void {
  if (!Array.isArray(value) || value.length <= printPieceItems) {
    // Two writes, not `${json}\n`: that concatenation copies the whole text once more before it
    // is encoded.
    context.stdout.write(JSON.stringify(value) ?? 'null')
    context.stdout.write('\n')
    return
  }
  // The same bytes as JSON.stringify(value): an item that has no JSON form (undefined, a
  // function) is `null` in an array.
  for (let start = 0; start < value.length; start += printPieceItems) {
    const items = value.slice(start, start + printPieceItems).map((item) => JSON.stringify(item) ?? 'null')
    const end = start + printPieceItems >= value.length ? ']\n' : ','
    context.stdout.write(`${start === 0 ? '[' : ''}${items.join(',')}${end}`)
  }
}

/**
 * Lines `printLines` writes at a time. A piece of a transcript's lines (~140 characters each) stays
 * under V8's large-object size (128 KB) even as UTF-16 (one ✓ or ← makes all of it two-byte), and
 * its bytes under glibc's mmap threshold, so each piece is allocated where the one before was
 * freed. The 250 KB transcript of a 1k-message session written as one string (500 KB as UTF-16)
 * and one buffer took fresh pages for both, a page fault per 4 KB (docs/benchmarks.md, issue 33).
 * Counted in lines, not characters: a loop over every line would itself get hot enough to be
 * compiled again by V8's optimizing tiers, in a process that ends a moment later.
 */
const printPieceLines = 128

export function printLines(context: CliContext, lines: readonly string[]): void {
  for (let start = 0; start < lines.length; start += printPieceLines) {
    // A piece's newline is joined to it: a rope of one piece, cheap to flatten.
    context.stdout.write(`${lines.slice(start, start + printPieceLines).join('\n')}\n`)
  }
}

/** A side note for people (on stderr, so stdout stays the result). */
export function printNote(context: CliContext, text: string): void {
  context.stderr.write(`${text}\n`)
}
