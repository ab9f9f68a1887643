// The value a bash word has before it runs, when that can be known from the text alone
// (docs/architecture.md §12.1): 'a b' is `a b`, "x" is `x`, \r is `r`. Two strictnesses:
// `plain` is what an allow rule may vouch for (only quoting and backslashes; no expansion of any
// kind, not even a glob or a tilde), `static` is what a deny rule looks through (ANSI-C `$'…'`
// and `$"…"` quoting are decoded too, a leading `~` is kept as written). Anything else is null.
import type { SyntaxNode } from './bash-grammar.js'

export type WordStrictness = 'plain' | 'static'

/** The word's value, or null when it expands to something the text does not say. */
export function wordValue(node: SyntaxNode, strictness: WordStrictness): string | null {
  const pieces = piecesOf(node, strictness)
  if (!pieces) return null
  // What bash still expands after quote removal lives in the unquoted characters only.
  let shape = ''
  let value = ''
  for (const piece of pieces) {
    value += piece.text
    shape += piece.quoted ? '_'.repeat(piece.text.length) : piece.text
  }
  // Brace expansion needs a comma or `..` inside: `stash@{0}` and `{}` are literal.
  if (/[$`*?[\]{}()<>|;&'"\\\s\p{Cc}]/u.test(shape.replace(/\{[^{},.]*\}/g, '_'))) return null
  if (strictness === 'plain' && /(?:^|[=:])~/.test(shape)) return null
  return value
}

interface Piece {
  text: string
  /** Quoted or escaped: bash takes it as it is. */
  quoted: boolean
}

function piecesOf(node: SyntaxNode, strictness: WordStrictness): Piece[] | null {
  if (node.broken) return null
  switch (node.type) {
    case 'word':
    case 'number':
      return unquotedPieces(node.text)
    case 'raw_string':
      return node.text.length >= 2 && node.text.startsWith("'") && node.text.endsWith("'")
        ? [{ text: node.text.slice(1, -1), quoted: true }]
        : null
    case 'string':
      return doubleQuoted(node)
    case 'ansi_c_string': {
      if (strictness !== 'static') return null
      const text = decodeAnsiC(node.text)
      return text === null ? null : [{ text, quoted: true }]
    }
    case 'translated_string': {
      // `$"…"`: the locale's translation of the string; without a catalogue (the norm), the string.
      const string = node.children[1]
      return strictness === 'static' && node.children.length === 2 && string ? doubleQuoted(string) : null
    }
    case 'concatenation': {
      const pieces: Piece[] = []
      for (const child of node.children) {
        const inner = piecesOf(child, strictness)
        if (!inner) return null
        for (const piece of inner) pieces.push(piece)
      }
      return pieces
    }
    default:
      return null
  }
}

/** An unquoted word: `\x` is a quoted `x`; a backslash-newline is removed (line continuation). */
function unquotedPieces(text: string): Piece[] {
  const pieces: Piece[] = []
  let plain = ''
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (char !== '\\') {
      plain += char
      continue
    }
    if (plain) pieces.push({ text: plain, quoted: false })
    plain = ''
    const next = text[i + 1]
    // A lone trailing backslash stays a backslash; the shape check then refuses it.
    if (next === undefined) pieces.push({ text: '\\', quoted: false })
    else if (next !== '\n') pieces.push({ text: next, quoted: true })
    i++
  }
  if (plain) pieces.push({ text: plain, quoted: false })
  return pieces
}

/** `"…"` holding only literal text: inside it `\` escapes only `$`, `` ` ``, `"`, `\` and newline. */
function doubleQuoted(node: SyntaxNode): Piece[] | null {
  if (node.type !== 'string') return null
  let text = ''
  for (const child of node.children) {
    if (child.type === '"' && !child.named) continue
    if (child.type !== 'string_content' || child.broken) return null
    const content = child.text
    for (let i = 0; i < content.length; i++) {
      const char = content[i]!
      if (char === '$' || char === '`') return null
      if (char === '\\' && i + 1 < content.length && '$`"\\\n'.includes(content[i + 1]!)) {
        if (content[i + 1] !== '\n') text += content[i + 1]
        i++
      } else text += char
    }
  }
  const first = node.children[0]
  const last = node.children.at(-1)
  if (node.children.length < 2 || first?.type !== '"' || last?.type !== '"') return null
  return [{ text, quoted: true }]
}

const simpleEscapes: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
}

/** Decodes `$'…'` as bash does; null for what it does not decode (`\c`, malformed text). */
export function decodeAnsiC(source: string): string | null {
  if (!source.startsWith("$'") || !source.endsWith("'") || source.length < 3) return null
  const body = source.slice(2, -1)
  let out = ''
  for (let i = 0; i < body.length; i++) {
    const char = body[i]!
    if (char !== '\\') {
      out += char
      continue
    }
    const next = body[i + 1]
    if (next === undefined) return null
    if (next in simpleEscapes) {
      out += simpleEscapes[next]
      i++
      continue
    }
    const numeric =
      /^[0-7]{1,3}/.exec(body.slice(i + 1)) ??
      (next === 'x' ? /^x([0-9a-fA-F]{1,2})/.exec(body.slice(i + 1)) : null) ??
      (next === 'u' ? /^u([0-9a-fA-F]{1,4})/.exec(body.slice(i + 1)) : null) ??
      (next === 'U' ? /^U([0-9a-fA-F]{1,8})/.exec(body.slice(i + 1)) : null)
    if (!numeric) return null
    const code = Number.parseInt(numeric[1] ?? numeric[0], numeric[1] === undefined ? 8 : 16)
    if (code > 0x10ffff) return null
    // A NUL ends the string in bash.
    if (code === 0) return out
    out += String.fromCodePoint(code)
    i += numeric[0].length
  }
  return out
}
