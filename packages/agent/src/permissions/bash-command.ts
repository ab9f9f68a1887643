// Splits a bash command line into the simple commands a permission rule is matched against
// (docs/architecture.md §12.1): `npm test && rm -rf x` is two commands, and an allow rule for
// `npm test` must not let the second one through. Quote-aware, not a full shell parser: what it
// cannot judge (command substitution, process substitution, here-documents, subshells) is
// reported as `opaque`, and the policy never allows an opaque command by pattern.

export interface SplitCommand {
  /** The simple commands, trimmed, in order (empty ones dropped). */
  readonly parts: string[]
  /** True when the line holds something a prefix cannot vouch for (`$(…)`, backticks, `<(…)`, `<<`, `( … )`). */
  readonly opaque: boolean
}

export function splitBashCommand(line: string): SplitCommand {
  const parts: string[] = []
  let current = ''
  let opaque = false
  let quote: '"' | "'" | null = null
  const push = () => {
    const trimmed = current.trim()
    if (trimmed) parts.push(trimmed)
    current = ''
  }
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!
    const next = line[i + 1]
    if (quote === "'") {
      current += char
      if (char === "'") quote = null
      continue
    }
    if (char === '\\') {
      current += char + (next ?? '')
      i++
      continue
    }
    if (quote === '"') {
      // Inside double quotes `$(…)` and backticks still run commands.
      if (char === '`' || (char === '$' && next === '(')) opaque = true
      current += char
      if (char === '"') quote = null
      continue
    }
    if (char === '"' || char === "'") {
      quote = char
      current += char
      continue
    }
    if (char === '`' || (char === '$' && next === '(')) opaque = true
    if ((char === '<' || char === '>') && next === '(') opaque = true
    if (char === '<' && next === '<') opaque = true
    if (char === '(' || char === ')' || char === '{' || char === '}') {
      if (current.trim() === '' || char === ')' || char === '}') opaque = true
    }
    if (char === ';' || char === '\n' || char === '&' || char === '|') {
      // `&&`, `||`, `|&`, `;;` and a trailing `&` all separate commands; `>&2`, `2>&1` do not.
      if (char === '&' && (current.endsWith('>') || current.endsWith('<'))) {
        current += char
        continue
      }
      push()
      if (next === char || (char === '|' && next === '&')) i++
      continue
    }
    current += char
  }
  if (quote) opaque = true
  push()
  return { parts, opaque }
}

/**
 * Whether `command` starts with the rule's prefix, word by word: `npm test` matches `npm test`
 * and `npm test -- -t x`, not `npm testing`. A trailing ` *` or `:*` is accepted and means the
 * same; `*` alone matches everything.
 */
export function matchesCommandPrefix(command: string, pattern: string): boolean {
  const prefix = pattern.replace(/(?:\s\*|:\*)$/, '').trim()
  if (prefix === '*' || prefix === '') return true
  const normalized = command.trim().replace(/\s+/g, ' ')
  const wanted = prefix.replace(/\s+/g, ' ')
  return normalized === wanted || normalized.startsWith(`${wanted} `)
}

/** Programs whose second word names what they do (`git push`, `npm test`): a rule keeps both words. */
const programsWithSubcommands = new Set([
  'apt',
  'apt-get',
  'brew',
  'bun',
  'cargo',
  'deno',
  'docker',
  'dotnet',
  'gh',
  'git',
  'go',
  'gradle',
  'kubectl',
  'make',
  'mvn',
  'npm',
  'npx',
  'pip',
  'pip3',
  'pnpm',
  'poetry',
  'systemctl',
  'terraform',
  'uv',
  'yarn',
])

/** The prefix an `always` answer proposes: the program, and its subcommand for programs that have them. */
export function proposeCommandPrefix(command: string): string {
  const { parts } = splitBashCommand(command)
  const first = parts[0] ?? command.trim()
  const words = first.split(/\s+/).filter((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word))
  const [program, sub] = words
  if (!program) return first
  if (sub && programsWithSubcommands.has(program) && /^[a-z][a-z0-9:_-]*$/i.test(sub))
    return `${program} ${sub}`
  return program
}
