// Picks the open session's mode (docs/architecture.md §12.1), or the mode of the next new one,
// from the runtime's one list of modes. Not locked while a turn runs: the Host applies a change
// from the turn's next tool call.
import { defaultSessionMode, type SessionModeId, sessionModes } from '@tangent/protocol'
import { useHost, useStore } from './use-host.js'

export function ModePicker() {
  const store = useStore()
  const nextMode = useHost((state) => state.nextMode)
  const current = useHost((state) =>
    state.openSessionId === null ? undefined : state.sessions.get(state.openSessionId)?.mode,
  )
  const value: SessionModeId = current ?? nextMode ?? defaultSessionMode
  const description = sessionModes.find((mode) => mode.id === value)?.description ?? ''

  return (
    <select
      className="model-picker mode-picker"
      data-testid="mode-picker"
      aria-label="Mode"
      value={value}
      title={description}
      onChange={(event) => void store.setMode(event.target.value as SessionModeId)}
    >
      {sessionModes.map((mode) => (
        <option key={mode.id} value={mode.id} title={mode.description}>
          {mode.name}
        </option>
      ))}
    </select>
  )
}
