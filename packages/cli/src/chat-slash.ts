// The slash commands of `tangent chat`: parsed with zod so a typo gets a clear answer.
import { lazySchema } from '@tangent/core/lazy-zod'
import type { z } from 'zod'

export const chatHelp = [
  '/fork [seq]   branch after the turn holding seq (default: the last completed turn) and switch to it',
  '/tree         show the session tree (* marks the current one)',
  '/switch ID    continue another session (its id or a unique prefix of one)',
  '/model M      use model M (provider:model) from the next turn',
  '/show [ID]    the transcript with seqs (default: this session)',
  '/restore SEQ  rewind the files this session changed after SEQ (undo it with /undo)',
  '/undo [SEQ]   undo the restore (or keep) recorded at SEQ (default: the latest)',
  '/diff ID      what differs between this session and ID: where they diverged, turns and files',
  '/explore P1 | P2 [| P3…]  try several ways after the last turn, one branch per prompt, each in its own worktree',
  '/keep ID      keep branch ID: its files into its parent, the other branches archived',
  '/compact      summarise the history so far; later turns send the summary (forks before it keep all)',
  '/help         this help',
  '/exit         leave (Ctrl-C at an idle prompt or Ctrl-D too; Ctrl-C during a turn aborts it)',
]

const Seq = lazySchema((z) =>
  z.string().regex(/^\d+$/, 'expected a non-negative integer seq').transform(Number),
)

export const SlashCommand = lazySchema((z) =>
  z.discriminatedUnion('name', [
    z.object({ name: z.literal('fork'), seq: Seq.optional() }),
    z.object({ name: z.literal('tree') }),
    z.object({ name: z.literal('switch'), id: z.string().min(1, 'usage: /switch ID') }),
    z.object({ name: z.literal('model'), model: z.string().min(1, 'usage: /model provider:model') }),
    z.object({ name: z.literal('compact') }),
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
  const name = rawName === 'quit' ? 'exit' : rawName
  const first = args[0]
  const candidate: Record<string, unknown> = { name }
  if (name === 'fork' && first !== undefined) candidate.seq = first
  if (name === 'switch') candidate.id = first ?? ''
  if (name === 'model') candidate.model = first ?? ''
  if (name === 'show' && first !== undefined) candidate.id = first
  if (name === 'restore') candidate.seq = first ?? ''
  if (name === 'undo' && first !== undefined) candidate.seq = first
  if (name === 'diff' || name === 'keep') candidate.id = first ?? ''
  if (name === 'explore') {
    const rest = line.slice(1).trim().slice(rawName.length).trim()
    candidate.prompts = rest === '' ? [] : rest.split('|').map((prompt) => prompt.trim())
  }
  const parsed = SlashCommand.safeParse(candidate)
  if (parsed.success) return parsed.data
  const known = [
    'fork',
    'tree',
    'switch',
    'model',
    'compact',
    'show',
    'restore',
    'undo',
    'diff',
    'explore',
    'keep',
    'help',
    'exit',
  ]
  if (!known.includes(name)) return { error: `Unknown command /${rawName}. Type /help for the list.` }
  const issue = parsed.error.issues[0]
  if (name === 'restore' && candidate.seq === '') return { error: 'usage: /restore SEQ' }
  return { error: issue?.message ?? `Bad arguments for /${name}` }
}
