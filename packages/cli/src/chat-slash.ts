// The slash commands of `tangent chat`: parsed with zod so a typo gets a clear answer.
import { lazySchema } from '@tangent/core/lazy-zod'
import { sessionModeIds } from '@tangent/core/session-modes'
import type { z } from 'zod'

/** One slash command: how chat's help shows it, and whether (and how) editors are offered it. */
export interface SlashCommandDefinition {
  name: SlashCommand['name']
  /** How it is typed, e.g. `/fork [seq]` (the help's left column). */
  usage: string
  /** What it does in `tangent chat` (the help's right column). */
  help: string
  /**
   * Offered to editors by `tangent acp` (acp/acp-commands.ts): under `name` (default the same),
   * described by `description` (default `help`), with `hint` for the text after the name.
   */
  editor?: { name?: string; description?: string; hint?: string }
}

/** Every command of `tangent chat`, in the order of its help. */
export const slashCommands: readonly SlashCommandDefinition[] = [
  {
    name: 'fork',
    usage: '/fork [seq]',
    help: 'branch after the turn holding seq (default: the last completed turn) and switch to it',
    editor: {
      description:
        'branch this session after the turn holding seq (default: the last completed turn) into a new session',
      hint: 'seq (optional: default the last completed turn)',
    },
  },
  { name: 'tree', usage: '/tree', help: 'show the session tree (* marks the current one)' },
  {
    name: 'switch',
    usage: '/switch ID',
    help: 'continue another session (its id or a unique prefix of one)',
  },
  { name: 'model', usage: '/model M', help: 'use model M (provider:model) from the next turn' },
  {
    name: 'image',
    usage: '/image FILE',
    help: 'send the image FILE (PNG, JPEG, GIF, WebP) with your next message (repeat for more)',
  },
  // Not offered to editors: they switch modes with their own mode menu (ACP session/set_mode).
  {
    name: 'mode',
    usage: '/mode [MODE]',
    help: 'show the modes, or switch: ask (before edits), edit (accept edits), plan (read-only)',
  },
  { name: 'show', usage: '/show [ID]', help: 'the transcript with seqs (default: this session)' },
  {
    name: 'restore',
    usage: '/restore SEQ',
    help: 'rewind the files this session changed after SEQ (undo it with /undo)',
    editor: { hint: 'SEQ' },
  },
  {
    name: 'undo',
    usage: '/undo [SEQ]',
    help: 'undo the restore (or keep) recorded at SEQ (default: the latest)',
    editor: { hint: 'SEQ (optional: default the latest restore or keep)' },
  },
  {
    name: 'diff',
    usage: '/diff ID',
    help: 'what differs between this session and ID: where they diverged, turns and files (also /compare ID)',
    editor: {
      name: 'compare',
      description: 'what differs between this session and ID: where they diverged, turns and files',
      hint: 'session ID (or a unique prefix of one)',
    },
  },
  {
    name: 'explore',
    usage: '/explore P1 | P2 [| P3…]',
    help: 'try several ways after the last turn, one branch per prompt, each in its own worktree',
    editor: { hint: 'PROMPT | PROMPT [| PROMPT…]' },
  },
  {
    name: 'keep',
    usage: '/keep ID',
    help: 'keep branch ID: its files into its parent, the other branches archived',
    editor: { hint: 'branch session ID' },
  },
  {
    name: 'compact',
    usage: '/compact',
    help: 'summarise the history so far; later turns send the summary (forks before it keep all)',
    editor: {},
  },
  { name: 'help', usage: '/help', help: 'this help' },
  {
    name: 'exit',
    usage: '/exit',
    help: 'leave (Ctrl-C at an idle prompt or Ctrl-D too; Ctrl-C during a turn aborts it)',
  },
]

/** Other names a command answers to. */
const aliases: Readonly<Record<string, SlashCommand['name']>> = { quit: 'exit', compare: 'diff' }

/** `tangent chat`'s /help: one line per command. */
export const chatHelp = slashCommands.map((command) => `${command.usage.padEnd(12)}  ${command.help}`)

const Seq = lazySchema((z) =>
  z.string().regex(/^\d+$/, 'expected a non-negative integer seq').transform(Number),
)

export const SlashCommand = lazySchema((z) =>
  z.discriminatedUnion('name', [
    z.object({ name: z.literal('fork'), seq: Seq.optional() }),
    z.object({ name: z.literal('tree') }),
    z.object({ name: z.literal('switch'), id: z.string().min(1, 'usage: /switch ID') }),
    z.object({ name: z.literal('model'), model: z.string().min(1, 'usage: /model provider:model') }),
    z.object({
      name: z.literal('mode'),
      mode: z.enum(sessionModeIds, { error: `usage: /mode [${sessionModeIds.join('|')}]` }).optional(),
    }),
    z.object({ name: z.literal('compact') }),
    z.object({ name: z.literal('image'), file: z.string().min(1, 'usage: /image FILE') }),
    z.object({ name: z.literal('show'), id: z.string().min(1).optional() }),
    z.object({ name: z.literal('restore'), seq: Seq }),
    z.object({ name: z.literal('undo'), seq: Seq.optional() }),
    z.object({ name: z.literal('diff'), id: z.string().min(1, 'usage: /diff ID') }),
    z.object({
      name: z.literal('explore'),
      prompts: z
        .array(z.string().min(1, 'usage: /explore PROMPT | PROMPT (an empty prompt between bars)'))
        .min(2, 'usage: /explore PROMPT | PROMPT [| PROMPT…] (two to eight prompts, split by |)')
        .max(8, 'at most eight branches'),
    }),
    z.object({ name: z.literal('keep'), id: z.string().min(1, 'usage: /keep ID') }),
    z.object({ name: z.literal('help') }),
    z.object({ name: z.literal('exit') }),
  ]),
)
export type SlashCommand = z.infer<typeof SlashCommand>

/** Parses `/name args…`; returns a message saying what is wrong instead of throwing. */
export function parseSlashCommand(line: string): SlashCommand | { error: string } {
  const [rawName = '', ...args] = line.slice(1).trim().split(/\s+/)
  const name = Object.hasOwn(aliases, rawName) ? aliases[rawName]! : rawName
  const first = args[0]
  const candidate: Record<string, unknown> = { name }
  if (name === 'fork' && first !== undefined) candidate.seq = first
  if (name === 'switch') candidate.id = first ?? ''
  if (name === 'model') candidate.model = first ?? ''
  if (name === 'mode' && first !== undefined) candidate.mode = first.toLowerCase()
  if (name === 'show' && first !== undefined) candidate.id = first
  if (name === 'restore') candidate.seq = first ?? ''
  if (name === 'undo' && first !== undefined) candidate.seq = first
  if (name === 'diff' || name === 'keep') candidate.id = first ?? ''
  // The rest of the line: a file name may hold spaces.
  if (name === 'image') candidate.file = line.slice(1).trim().slice(rawName.length).trim()
  if (name === 'explore') {
    const rest = line.slice(1).trim().slice(rawName.length).trim()
    candidate.prompts = rest === '' ? [] : rest.split('|').map((prompt) => prompt.trim())
  }
  const parsed = SlashCommand.safeParse(candidate)
  if (parsed.success) return parsed.data
  if (!slashCommands.some((command) => command.name === name))
    return { error: `Unknown command /${rawName}. Type /help for the list.` }
  const issue = parsed.error.issues[0]
  if (name === 'restore' && candidate.seq === '') return { error: 'usage: /restore SEQ' }
  // A usage line names the command as it was typed (/compare ID, not /diff ID).
  const error = issue?.message ?? `Bad arguments for /${name}`
  return { error: rawName === name ? error : error.replace(`/${name} `, `/${rawName} `) }
}
