// Tangent's session modes (docs/architecture.md §12.1) as ACP's session modes: what `session/new`,
// `session/load`, `session/resume` and `session/fork` answer in `modes`, and the mode id
// `session/set_mode` names. The list is the runtime's one definition; only the wire shape is here.
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { TangentError } from '@tangent/core'
import { isSessionModeId, type SessionModeId, sessionModeIds, sessionModes } from '@tangent/protocol'
import type { SessionEvent, SessionSummary } from '../backend.js'

/** The modes an editor can offer, and the one the session is in. */
export function modeState(session: SessionSummary): acp.SessionModeState {
  return {
    currentModeId: session.mode,
    availableModes: sessionModes.map((mode) => ({
      id: mode.id,
      name: mode.name,
      description: mode.description,
    })),
  }
}

/** The config option's id: the same modes as a `mode`-category select (ACP's newer way to offer them). */
export const modeConfigId = 'mode'

/**
 * The modes as a session config option (category `mode`), for `configOptions` beside the model's:
 * a client that shows config options uses this and ignores `modes`; `session/set_config_option`
 * with configId `mode` then sets it like `session/set_mode`.
 */
export function modeConfigOption(session: SessionSummary): acp.SessionConfigOption {
  return {
    id: modeConfigId,
    name: 'Mode',
    category: 'mode',
    type: 'select',
    currentValue: session.mode,
    options: sessionModes.map((mode) => ({ value: mode.id, name: mode.name, description: mode.description })),
  }
}

/** `current_mode_update` for a session whose mode is now `session.mode`. */
export function currentModeUpdate(session: Pick<SessionSummary, 'mode'>): acp.SessionUpdate {
  return { sessionUpdate: 'current_mode_update', currentModeId: session.mode }
}

/**
 * The update a logged `session/mode` event makes (set from the CLI, the web or another editor, or
 * replayed by `session/load`); null for any other event or a mode this version does not know.
 */
export function modeUpdateOfEvent(event: Pick<SessionEvent, 'type' | 'data'>): acp.SessionUpdate | null {
  if (event.type !== 'session/mode') return null
  const mode = (event.data as { mode?: unknown } | null)?.mode
  return isSessionModeId(mode) ? currentModeUpdate({ mode }) : null
}

/**
 * The mode `session/set_mode` (or the `mode` config option) names, else `invalid-params` (ACP's -32602) listing the modes: an
 * editor only offers the ids it was given, so another one is a client mistake.
 */
export function requestedMode(modeId: string): SessionModeId {
  if (isSessionModeId(modeId)) return modeId
  throw new TangentError(
    'invalid-params',
    `Unknown session mode ${JSON.stringify(modeId)}: the modes are ${sessionModeIds.join(', ')}.`,
    { issues: [{ path: ['modeId'], message: `expected one of ${sessionModeIds.join(', ')}` }] },
  )
}
