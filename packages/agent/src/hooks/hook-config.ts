// The `hooks` key of a config file (docs/architecture.md §12.7): commands Tangent runs at points
// of a session's life, by event name, each with the tools it is limited to and its timeout.
import { lazySchema } from '@tangent/core/lazy-zod'
import type { z } from 'zod'

/** The events a hook may name, in the order of a session's life. */
export const hookEventNames = [
  'sessionStart',
  'preToolUse',
  'postToolUse',
  'turnEnd',
  'fork',
  'keep',
] as const
export type HookEventName = (typeof hookEventNames)[number]

/** The events about one tool call: only their hooks take `match`. */
export const toolHookEvents: ReadonlySet<HookEventName> = new Set(['preToolUse', 'postToolUse'])

export const defaultHookTimeoutMs = 10_000
/** The longest a hook may be given: a hook holds up the turn (or the fork, or the keep) it runs for. */
export const maxHookTimeoutMs = 10 * 60_000

export const HookEntry = lazySchema((z) =>
  z
    .object({
      /** A shell line (bash -c), run in the session's folder with the event as JSON on stdin. */
      command: z
        .string({ error: 'a hook needs a "command" (a shell line)' })
        .trim()
        .min(1, 'a hook needs a "command" (a shell line)'),
      /** preToolUse and postToolUse only: a tool name, or a glob of names (`*` any characters, `?` one). */
      match: z.string().min(1).optional(),
      timeoutMs: z
        .number({ error: `timeoutMs must be a whole number of milliseconds, 1 to ${maxHookTimeoutMs}` })
        .int(`timeoutMs must be a whole number of milliseconds, 1 to ${maxHookTimeoutMs}`)
        .min(1, `timeoutMs must be a whole number of milliseconds, 1 to ${maxHookTimeoutMs}`)
        .max(maxHookTimeoutMs, `timeoutMs must be a whole number of milliseconds, 1 to ${maxHookTimeoutMs}`)
        .optional(),
    })
    .strict(),
)
export type HookEntry = z.infer<typeof HookEntry>

/** `{"<event>": [hook, …]}`: an unknown event name, or `match` on an event that is not a tool call's, is an error. */
export const HooksConfig = lazySchema((z) =>
  z.record(z.string(), z.array(HookEntry)).superRefine((hooks, context) => {
    for (const [event, entries] of Object.entries(hooks)) {
      if (!(hookEventNames as readonly string[]).includes(event)) {
        context.addIssue({
          code: 'custom',
          path: [event],
          message: `"${event}" is not a hook event (use ${hookEventNames.join(', ')})`,
        })
        continue
      }
      entries.forEach((entry, index) => {
        if (entry.match !== undefined && !toolHookEvents.has(event as HookEventName))
          context.addIssue({
            code: 'custom',
            path: [event, index, 'match'],
            message: `"match" limits only preToolUse and postToolUse hooks, not ${event}`,
          })
      })
    }
  }),
)
export type HooksConfig = Partial<Record<HookEventName, HookEntry[]>>

/** Whether a hook's `match` covers a tool: no match covers every tool; `*` is any characters, `?` one. */
export function hookMatchesTool(match: string | undefined, toolName: string): boolean {
  if (match === undefined) return true
  const pattern = match
    .split('')
    .map((character) =>
      character === '*' ? '.*' : character === '?' ? '.' : character.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
    )
    .join('')
  return new RegExp(`^${pattern}$`).test(toolName)
}
