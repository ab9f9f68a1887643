// Session modes (docs/architecture.md §12.1): how much the agent may do without asking, as one
// setting the permission policy reads at every tool call. The one definition every front-end
// (CLI, web, ACP's `session/set_mode`) shows; a session's mode is a `session/mode` event in its
// log, so a fork keeps the mode in force at its fork point.

/** The ids, in the order front-ends list them. */
export const sessionModeIds = ['ask', 'edit', 'plan'] as const
export type SessionModeId = (typeof sessionModeIds)[number]

/** The mode of a session whose log has no `session/mode` event. */
export const defaultSessionMode: SessionModeId = 'edit'

export interface SessionModeInfo {
  readonly id: SessionModeId
  /** A short label for a picker. */
  readonly name: string
  /** One sentence on what the mode lets the agent do. */
  readonly description: string
}

export const sessionModes: readonly SessionModeInfo[] = [
  {
    id: 'ask',
    name: 'Ask before edits',
    description:
      'Reads run; writes, edits, bash and MCP tools ask first unless a config rule or an "always" answer allows them.',
  },
  {
    id: 'edit',
    name: 'Accept edits',
    description:
      "File edits inside the session's folder run; bash and MCP tools follow the config rules and defaults.",
  },
  {
    id: 'plan',
    name: 'Plan, read-only',
    description: 'Only read, list and grep run; writes, edits, bash, subagents and MCP tools are refused.',
  },
]

export function isSessionModeId(value: unknown): value is SessionModeId {
  return typeof value === 'string' && (sessionModeIds as readonly string[]).includes(value)
}
