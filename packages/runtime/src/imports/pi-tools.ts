// pi's built-in tools as Tangent's (issue 31): a call is given Tangent's name only when every field
// of its input has a Tangent equivalent, so an imported call means what the tool did. Anything
// else keeps pi's input untouched; a pi name that is also a Tangent tool's becomes `pi_<name>`
// so it is never read as Tangent's tool with inputs it does not take.

import type { ImportedToolCall } from './imported-tree.js'

/** Tangent's built-in tool names (packages/agent/src/tools), which an unmapped pi call must not take. */
const tangentToolNames = new Set(['read', 'write', 'edit', 'bash', 'grep', 'list', 'task'])

type Input = Record<string, unknown>

const isObject = (value: unknown): value is Input =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const isPositiveInteger = (value: unknown): value is number =>
  Number.isInteger(value) && (value as number) >= 1

/** True when `input` has no key outside `allowed` (own keys only, `__proto__` included). */
function onlyKeys(input: Input, allowed: readonly string[]): boolean {
  return Object.keys(input).every((key) => allowed.includes(key))
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** pi input → Tangent input, or null when some field has no Tangent equivalent. */
const translators: Record<string, (input: Input) => Input | null> = {
  read: (input) =>
    onlyKeys(input, ['path', 'offset', 'limit']) &&
    typeof input.path === 'string' &&
    (input.offset === undefined || isPositiveInteger(input.offset)) &&
    (input.limit === undefined || isPositiveInteger(input.limit))
      ? pick(input, ['path', 'offset', 'limit'])
      : null,
  write: (input) =>
    onlyKeys(input, ['path', 'content']) &&
    typeof input.path === 'string' &&
    typeof input.content === 'string'
      ? { path: input.path, content: input.content }
      : null,
  // pi 0.73 takes `edits: [{oldText, newText}]` (older models send one pair at the top level);
  // Tangent's edit replaces one unique text, so only a single edit corresponds.
  edit: (input) => {
    if (!onlyKeys(input, ['path', 'edits', 'oldText', 'newText']) || typeof input.path !== 'string')
      return null
    const edits = Array.isArray(input.edits) ? input.edits : []
    const pairs =
      typeof input.oldText === 'string'
        ? [...edits, { oldText: input.oldText, newText: input.newText }]
        : edits
    const [only] = pairs
    if (pairs.length !== 1 || !isObject(only) || !onlyKeys(only, ['oldText', 'newText'])) return null
    if (typeof only.oldText !== 'string' || typeof only.newText !== 'string') return null
    return { path: input.path, oldText: only.oldText, newText: only.newText }
  },
  // pi's timeout is in seconds, Tangent's in milliseconds.
  bash: (input) => {
    if (!onlyKeys(input, ['command', 'timeout']) || typeof input.command !== 'string' || input.command === '')
      return null
    if (input.timeout === undefined) return { command: input.command }
    if (typeof input.timeout !== 'number' || !(input.timeout > 0) || !Number.isFinite(input.timeout))
      return null
    return { command: input.command, timeoutMs: Math.max(1, Math.round(input.timeout * 1000)) }
  },
  // pi's grep is ripgrep (`glob`, `literal`); Tangent's takes a JavaScript regular expression and `include`.
  grep: (input) => {
    if (
      !onlyKeys(input, ['pattern', 'path', 'glob', 'ignoreCase', 'literal']) ||
      typeof input.pattern !== 'string'
    )
      return null
    if (input.path !== undefined && typeof input.path !== 'string') return null
    if (input.glob !== undefined && typeof input.glob !== 'string') return null
    if (input.ignoreCase !== undefined && typeof input.ignoreCase !== 'boolean') return null
    if (input.literal !== undefined && typeof input.literal !== 'boolean') return null
    const out: Input = { pattern: input.literal ? escapeRegExp(input.pattern) : input.pattern }
    if (input.path !== undefined) out.path = input.path
    if (input.glob !== undefined) out.include = input.glob
    if (input.ignoreCase !== undefined) out.ignoreCase = input.ignoreCase
    return out
  },
  ls: (input) =>
    onlyKeys(input, ['path']) && (input.path === undefined || typeof input.path === 'string')
      ? input.path === undefined
        ? {}
        : { path: input.path }
      : null,
}

/** pi tool name → Tangent tool name, for the tools `translators` knows. */
const tangentNameOf: Record<string, string> = {
  read: 'read',
  write: 'write',
  edit: 'edit',
  bash: 'bash',
  grep: 'grep',
  ls: 'list',
}

function pick(input: Input, keys: readonly string[]): Input {
  const out: Input = {}
  for (const key of keys) if (input[key] !== undefined) out[key] = input[key]
  return out
}

/** The name a pi tool call is imported under when its input cannot be translated. */
export function untranslatedToolName(piName: string): string {
  return tangentToolNames.has(piName) ? `pi_${piName}` : piName
}

/** One pi tool call as the neutral tree's, mapped to Tangent's tool where it corresponds. */
export function importPiToolCall(id: string, piName: string, args: unknown): ImportedToolCall {
  const translate = Object.hasOwn(translators, piName) ? translators[piName] : undefined
  const translated = translate && isObject(args) ? translate(args) : null
  if (translated) return { id, name: tangentNameOf[piName]!, input: translated, sourceName: piName }
  const name = untranslatedToolName(piName)
  return name === piName ? { id, name, input: args } : { id, name, input: args, sourceName: piName }
}
