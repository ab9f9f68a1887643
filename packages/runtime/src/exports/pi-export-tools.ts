// Tangent's tool calls as pi's (issue 31), the inverse of imports/pi-tools.ts: a call takes pi's
// name only when every field of its input means the same to pi's tool (pi-coding-agent 0.73.1's
// read, write, edit, bash, grep, ls), so pi's model reads a call to its own tool as what was done.
// A Tangent call whose input pi's tool of that name would read otherwise keeps its meaning under
// `tangent_<name>`; a call an import kept as `pi_<name>` gets its own pi name back.

type Input = Record<string, unknown>

/** pi 0.73.1's built-in tool names (dist/core/tools). */
const piToolNames = new Set(['read', 'write', 'edit', 'bash', 'grep', 'find', 'ls'])
/** Tangent's tools that share a name with one of pi's (a call of pi's `find` or `ls` kept by an import is pi's). */
const sharedToolNames = new Set(['read', 'write', 'edit', 'bash', 'grep'])

export interface PiToolCall {
  name: string
  arguments: unknown
}

const isObject = (value: unknown): value is Input =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** True when `input` has no own key outside `allowed`. */
function onlyKeys(input: Input, allowed: readonly string[]): boolean {
  return Object.keys(input).every((key) => allowed.includes(key))
}

const optional = (value: unknown, type: 'string' | 'boolean' | 'number') =>
  value === undefined || typeof value === type

/** Tangent input → pi input of the tool of `piName`, or null when some field has no pi equivalent. */
const translators: Record<string, { piName: string; translate: (input: Input) => Input | null }> = {
  read: {
    piName: 'read',
    translate: (input) =>
      onlyKeys(input, ['path', 'offset', 'limit']) &&
      typeof input.path === 'string' &&
      optional(input.offset, 'number') &&
      optional(input.limit, 'number')
        ? pick(input, ['path', 'offset', 'limit'])
        : null,
  },
  // pi's write replaces the file; Tangent's `append` has no pi equivalent.
  write: {
    piName: 'write',
    translate: (input) =>
      onlyKeys(input, ['path', 'content', 'append']) &&
      typeof input.path === 'string' &&
      typeof input.content === 'string' &&
      (input.append === undefined || input.append === false)
        ? { path: input.path, content: input.content }
        : null,
  },
  // pi's edit takes a list of unique replacements; `replaceAll` has no pi equivalent.
  edit: {
    piName: 'edit',
    translate: (input) =>
      onlyKeys(input, ['path', 'oldText', 'newText', 'replaceAll']) &&
      typeof input.path === 'string' &&
      typeof input.oldText === 'string' &&
      typeof input.newText === 'string' &&
      (input.replaceAll === undefined || input.replaceAll === false)
        ? { path: input.path, edits: [{ oldText: input.oldText, newText: input.newText }] }
        : null,
  },
  // Tangent's timeout is in milliseconds, pi's in seconds.
  bash: {
    piName: 'bash',
    translate: (input) => {
      if (!onlyKeys(input, ['command', 'timeoutMs']) || typeof input.command !== 'string') return null
      if (input.timeoutMs === undefined) return { command: input.command }
      if (typeof input.timeoutMs !== 'number' || !(input.timeoutMs > 0) || !Number.isFinite(input.timeoutMs))
        return null
      return { command: input.command, timeout: input.timeoutMs / 1000 }
    },
  },
  grep: {
    piName: 'grep',
    translate: (input) => {
      if (
        !onlyKeys(input, ['pattern', 'path', 'include', 'ignoreCase']) ||
        typeof input.pattern !== 'string' ||
        !optional(input.path, 'string') ||
        !optional(input.include, 'string') ||
        !optional(input.ignoreCase, 'boolean')
      )
        return null
      const out: Input = { pattern: input.pattern }
      if (input.path !== undefined) out.path = input.path
      if (input.include !== undefined) out.glob = input.include
      if (input.ignoreCase !== undefined) out.ignoreCase = input.ignoreCase
      return out
    },
  },
  // pi's ls lists one directory; Tangent's `recursive` has no pi equivalent.
  list: {
    piName: 'ls',
    translate: (input) =>
      onlyKeys(input, ['path', 'recursive']) &&
      optional(input.path, 'string') &&
      (input.recursive === undefined || input.recursive === false)
        ? input.path === undefined
          ? {}
          : { path: input.path }
        : null,
  },
}

function pick(input: Input, keys: readonly string[]): Input {
  const out: Input = {}
  for (const key of keys) if (input[key] !== undefined) out[key] = input[key]
  return out
}

/** One Tangent tool call as pi's: its pi name and arguments (Tangent's input when not translated). */
export function exportPiToolCall(name: string, input: unknown): PiToolCall {
  const translator = Object.hasOwn(translators, name) ? translators[name] : undefined
  const translated = translator && isObject(input) ? translator.translate(input) : null
  if (translator && translated) return { name: translator.piName, arguments: translated }
  // An imported pi call Tangent could not translate: pi's own name and input.
  if (name.startsWith('pi_') && piToolNames.has(name.slice(3)))
    return { name: name.slice(3), arguments: input }
  return { name: sharedToolNames.has(name) ? `tangent_${name}` : name, arguments: input ?? {} }
}
