// The slash commands of `tangent chat`: parsed with zod so a typo gets a clear answer.
import { lazySchema } from '@tangent/core/lazy-zod'
import type { z } from 'zod'

export const chatHelp = [
  '/fork [seq]   branch after the turn holding seq (default: the last completed turn) and switch to it',
  '/tree         show the session tree (* marks the current one)',
  '/switch ID    continue another session (its id or a unique prefix of one)',
  '/model M      use model M (provider:model) from the next turn',
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
  const parsed = SlashCommand.safeParse(candidate)
  if (parsed.success) return parsed.data
  const known = ['fork', 'tree', 'switch', 'model', 'compact', 'help', 'exit']
  if (!known.includes(name)) return { error: `Unknown command /${rawName}. Type /help for the list.` }
  return { error: parsed.error.issues[0]?.message ?? `Bad arguments for /${name}` }
}
