// Tangent's tool calls as Claude Code's (`tangent export --format claude`): the inverse of the
// Claude Code reader's table (imports/claude.ts, `toolCallOf`). A call takes Claude Code's name only
// when every field of its input has a Claude Code equivalent, so the resumed model reads a call it
// knows; any other call keeps Tangent's name and input. Paths become absolute under the session's
// folder, as Claude Code's file tools take them (the reader makes them relative again).
import { isAbsolute, resolve } from 'node:path'

type Input = Record<string, unknown>

/** A call as a Claude Code `tool_use` block names it. */
export interface ClaudeToolCall {
  name: string
  input: unknown
}

const isObject = (value: unknown): value is Input =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function onlyKeys(input: Input, allowed: readonly string[]): boolean {
  return Object.keys(input).every((key) => allowed.includes(key))
}

const optional = (value: unknown, type: 'string' | 'number' | 'boolean') =>
  value === undefined || typeof value === type

/** Drops the fields that are undefined (JSON would drop them too, but tests compare objects). */
function defined(input: Input): Input {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined))
}

function absolute(path: string, cwd: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path)
}

/** Tangent input → Claude Code's, or null when some field has no equivalent there. */
const translators: Record<string, { name: string; translate: (input: Input, cwd: string) => Input | null }> =
  {
    read: {
      name: 'Read',
      translate: (input, cwd) =>
        onlyKeys(input, ['path', 'offset', 'limit']) &&
        typeof input.path === 'string' &&
        optional(input.offset, 'number') &&
        optional(input.limit, 'number')
          ? defined({ file_path: absolute(input.path, cwd), offset: input.offset, limit: input.limit })
          : null,
    },
    // Claude Code's Write has no append: an appending write keeps Tangent's name.
    write: {
      name: 'Write',
      translate: (input, cwd) =>
        onlyKeys(input, ['path', 'content', 'append']) &&
        input.append !== true &&
        typeof input.path === 'string' &&
        typeof input.content === 'string'
          ? { file_path: absolute(input.path, cwd), content: input.content }
          : null,
    },
    edit: {
      name: 'Edit',
      translate: (input, cwd) =>
        onlyKeys(input, ['path', 'oldText', 'newText', 'replaceAll']) &&
        typeof input.path === 'string' &&
        typeof input.oldText === 'string' &&
        typeof input.newText === 'string' &&
        optional(input.replaceAll, 'boolean')
          ? defined({
              file_path: absolute(input.path, cwd),
              old_string: input.oldText,
              new_string: input.newText,
              replace_all: input.replaceAll,
            })
          : null,
    },
    // Both take milliseconds.
    bash: {
      name: 'Bash',
      translate: (input) =>
        onlyKeys(input, ['command', 'timeoutMs']) &&
        typeof input.command === 'string' &&
        optional(input.timeoutMs, 'number')
          ? defined({ command: input.command, timeout: input.timeoutMs })
          : null,
    },
    // Tangent's grep prints matching lines, as Claude Code's does in its `content` mode.
    grep: {
      name: 'Grep',
      translate: (input, cwd) =>
        onlyKeys(input, ['pattern', 'path', 'include', 'ignoreCase']) &&
        typeof input.pattern === 'string' &&
        optional(input.path, 'string') &&
        optional(input.include, 'string') &&
        optional(input.ignoreCase, 'boolean')
          ? defined({
              pattern: input.pattern,
              path: typeof input.path === 'string' ? absolute(input.path, cwd) : undefined,
              glob: input.include,
              '-i': input.ignoreCase,
              output_mode: 'content',
            })
          : null,
    },
    // Claude Code's LS (older versions; the reader maps it back) lists one directory.
    list: {
      name: 'LS',
      translate: (input, cwd) =>
        onlyKeys(input, ['path', 'recursive']) && input.recursive !== true && optional(input.path, 'string')
          ? { path: absolute(typeof input.path === 'string' ? input.path : '.', cwd) }
          : null,
    },
    // A subagent in its own copy of the files has no Claude Code equivalent.
    task: {
      name: 'Agent',
      translate: (input) =>
        onlyKeys(input, ['prompt', 'files']) &&
        typeof input.prompt === 'string' &&
        (input.files === undefined || input.files === 'shared')
          ? {
              description: taskDescription(input.prompt),
              prompt: input.prompt,
              subagent_type: 'general-purpose',
            }
          : null,
    },
  }

/** Claude Code's Agent tool asks for a short description: the prompt's first words. */
function taskDescription(prompt: string): string {
  const words = prompt.replace(/\s+/g, ' ').trim().split(' ').slice(0, 6).join(' ')
  return words.length > 60 ? `${words.slice(0, 59)}…` : words || 'Subtask'
}

/** A tool name as the Anthropic API takes one (letters, digits, `_`, `-`; at most 64). */
function claudeToolName(name: string): string {
  const safe = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64)
  return safe === '' ? 'tool' : safe
}

/** One Tangent call as Claude Code's: mapped where it corresponds, else under its own (API-safe) name. */
export function claudeToolCallOf(toolName: string, input: unknown, cwd: string): ClaudeToolCall {
  const translator = Object.hasOwn(translators, toolName) ? translators[toolName] : undefined
  if (translator && isObject(input)) {
    const mapped = translator.translate(input, cwd)
    if (mapped !== null) return { name: translator.name, input: mapped }
  }
  // The API takes an object as a tool's input.
  return { name: claudeToolName(toolName), input: isObject(input) ? input : { input: input ?? null } }
}
