// What the model is told of the session's mode (docs/architecture.md §12.1): the permission policy
// enforces the mode whatever the model does; this says it up front, so a model in plan mode plans
// instead of trying writes that will be refused. The default mode adds nothing.
import type { SessionModeId } from '@tangent/core'

const notes: Readonly<Record<SessionModeId, string | null>> = {
  edit: null,
  ask: 'The session is in ask mode: the user approves each file change, command, subagent and MCP tool call before it runs, and may refuse it.',
  plan: 'The session is in plan mode (read-only): only the read, list and grep tools run; any other tool call is refused. Investigate, then describe the changes you propose, step by step; the user switches modes to let you make them.',
}

/** `system` with a paragraph on `mode` after it (nothing for `edit`). */
export function systemPromptWithMode(system: string, mode: SessionModeId): string {
  const note = notes[mode]
  return note === null ? system : `${system}\n\n${note}`
}
