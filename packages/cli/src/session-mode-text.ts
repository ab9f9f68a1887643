// The session modes (docs/architecture.md §12.1) as the CLI reads and shows them: `tangent mode`,
// `tangent run --mode` and chat's `/mode` take the same ids and print the same lines, from the
// one definition the runtime, the web and ACP share.
import { type SessionModeId, type SessionModeInfo, sessionModeIds, sessionModes } from '@tangent/protocol'
import { UsageError } from './cli-error.js'

/** The mode a person named (any case, surrounding spaces ignored), else a usage error listing them. */
export function parseModeArgument(value: string, where: string): SessionModeId {
  const id = value.trim().toLowerCase()
  const mode = sessionModes.find((candidate) => candidate.id === id)
  if (mode) return mode.id
  throw new UsageError(
    `${where}: unknown mode ${JSON.stringify(value)}; the modes are ${sessionModeIds.join(', ')} (${modeNames()})`,
  )
}

export function modeInfo(id: SessionModeId): SessionModeInfo {
  return sessionModes.find((mode) => mode.id === id)!
}

/** `plan (Plan, read-only)`. */
export function modeLabel(id: SessionModeId): string {
  return `${id} (${modeInfo(id).name})`
}

/** Each mode on a line, the current one marked: what `tangent mode ID` and `/mode` show. */
export function modeListLines(current: SessionModeId): string[] {
  return sessionModes.map(
    (mode) => `${mode.id === current ? '*' : ' '} ${mode.id.padEnd(5)} ${mode.name}: ${mode.description}`,
  )
}

function modeNames(): string {
  return sessionModes.map((mode) => `${mode.id}: ${mode.name}`).join('; ')
}
