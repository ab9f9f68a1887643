// The slash commands `tangent acp` offers an editor (`available_commands_update`) and runs when a
// prompt starts with one: the same definitions as `tangent chat` (chat-slash.ts), run by the same
// code (session-commands.ts), answered as text instead of a turn.
import type * as acp from '@agentclientprotocol/sdk/unstable'
import type { Backend } from '../backend.js'
import { parseSlashCommand, type SlashCommandDefinition, slashCommands } from '../chat-slash.js'
import { isSessionCommand, runSessionCommand } from '../session-commands.js'

/** What a command prompt answers: text for an `agent_message_chunk`, and the session it made. */
export interface AcpCommandResult {
  /** Markdown: the command's plain-text answer in a code block (see `asCodeBlock`). */
  text: string
  /** The session the command made (/fork): the editor can open it with session/load. */
  sessionId?: string
  /** The title of `sessionId` ('' when it has none). */
  title?: string
  /** The branches /explore made (A, B, …), each a session the editor can open; their turns run. */
  branches?: { label: string; sessionId: string; title: string }[]
}

/** The chat commands editors are offered, each with the name it has there. */
const editorCommands = slashCommands.flatMap((command) =>
  command.editor ? [{ ...command, editorName: command.editor.name ?? command.name }] : [],
) satisfies (SlashCommandDefinition & { editorName: string })[]

/** The list for `available_commands_update`. */
export function availableCommands(): acp.AvailableCommand[] {
  return editorCommands.map((command) => ({
    name: command.editorName,
    description: capitalise(command.editor?.description ?? command.help),
    ...(command.editor?.hint !== undefined ? { input: { hint: command.editor.hint } } : {}),
  }))
}

/** The `session/update` that tells the editor the commands (after session/new, load, resume, fork). */
export function availableCommandsUpdate(): acp.SessionUpdate {
  return { sessionUpdate: 'available_commands_update', availableCommands: availableCommands() }
}

/**
 * Runs `promptText` when it is one of the editor's commands: `/name` at the very start, followed
 * by the end or whitespace (`/etc/passwd is odd` and `/help` are prompts for the model), and null
 * otherwise. A usage mistake or a refusal of the runtime is the answer's text, not an exception.
 */
export async function runAcpCommand(
  backend: Backend,
  sessionId: string,
  promptText: string,
): Promise<AcpCommandResult | null> {
  const name = /^\/([a-z]+)(?:\s|$)/.exec(promptText)?.[1]
  const command = editorCommands.find((candidate) => candidate.editorName === name)
  if (command === undefined) return null
  // Parsed as chat parses it (`/compare` is chat's `/diff` under its other name).
  const parsed = parseSlashCommand(promptText)
  if ('error' in parsed) return { text: asCodeBlock(parsed.error) }
  if (!isSessionCommand(parsed)) throw new Error(`/${parsed.name} is offered to editors but not runnable`)
  const result = await runSessionCommand(backend, sessionId, parsed, { frontEnd: 'editor' })
  return {
    text: asCodeBlock(result.text),
    ...(result.newSessionId !== undefined
      ? { sessionId: result.newSessionId, title: result.title ?? '' }
      : {}),
    ...(result.branches !== undefined ? { branches: result.branches } : {}),
  }
}

/**
 * Text in a fenced code block, whose fence is longer than any run of backticks in it: editors
 * render agent text as Markdown, and titles, paths and messages come from models and other
 * clients — shown verbatim, a path like `![x](https://…)` would be an image fetched from
 * anywhere. In a code block nothing in it is markup.
 */
export function asCodeBlock(text: string): string {
  const longestRun = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length))
  const fence = '`'.repeat(Math.max(3, longestRun + 1))
  return `${fence}text\n${text}\n${fence}`
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
