// What an `always` answer to a permission question keeps (docs/architecture.md §12.1), read from
// the `pattern` of its `permission/requested` event, for the CLI's question and the web card
// alike: a front-end shows this before the person answers, never a wider promise.

/** A bash pattern that covers one command line exactly, character for character. */
export const exactLinePrefix = 'exact:'

export type AlwaysScope =
  /** Every call of the tool. */
  | { kind: 'everything' }
  /** Bash lines whose every command starts with `prefix`, word by word. */
  | { kind: 'prefix'; prefix: string }
  /** One bash line exactly. */
  | { kind: 'exact-line'; line: string }
  /** File tools: paths matching `glob` (relative to the session's folder). */
  | { kind: 'paths'; glob: string }
  /** A write to the repository's machinery (`.git`) or the project's rules (`.tangent`): asked every time. */
  | { kind: 'asked-every-time'; path: string }

const fileTools = new Set(['read', 'write', 'edit', 'list', 'grep'])

export function alwaysScopeOf(toolName: string, pattern: string): AlwaysScope {
  const trimmed = pattern.trim()
  if (toolName === 'bash') {
    if (trimmed === '*' || trimmed === '') return { kind: 'everything' }
    if (pattern.startsWith(exactLinePrefix))
      return { kind: 'exact-line', line: pattern.slice(exactLinePrefix.length) }
    return { kind: 'prefix', prefix: pattern }
  }
  if (trimmed === '**' || trimmed === '*' || trimmed === '') return { kind: 'everything' }
  if ((toolName === 'write' || toolName === 'edit') && isMachineryPath(pattern))
    return { kind: 'asked-every-time', path: pattern }
  return fileTools.has(toolName) ? { kind: 'paths', glob: pattern } : { kind: 'everything' }
}

/** A path with a `.git` or `.tangent` component (any letter case: some file systems fold it). */
function isMachineryPath(relative: string): boolean {
  return relative.split('/').some((part) => {
    const name = part.toLowerCase()
    return name === '.git' || name === '.tangent'
  })
}
