// Picks the model of the open session (or of the next new one) from `host.info`'s list;
// models whose provider is not configured are listed but disabled, with the reason.
import { isOpenSessionRunning } from './host-state.js'
import { useHost, useStore } from './use-host.js'

export function ModelPicker() {
  const store = useStore()
  const models = useHost((state) => state.info?.models)
  const defaultModel = useHost((state) => state.info?.defaultModel ?? '')
  const nextModel = useHost((state) => state.nextModel)
  const running = useHost(isOpenSessionRunning)
  const current = useHost((state) => {
    const session = state.openSessionId === null ? undefined : state.sessions.get(state.openSessionId)
    return session?.model ? `${session.model.provider}:${session.model.model}` : null
  })
  const value = current ?? nextModel ?? defaultModel
  if (!models) return null
  const known = models.some((model) => model.id === value)

  return (
    <select
      className="model-picker"
      data-testid="model-picker"
      aria-label="Model"
      value={value}
      disabled={running}
      title={running ? 'The model can change once the turn has finished' : 'Model for the next turn'}
      onChange={(event) => void store.setModel(event.target.value)}
    >
      {known ? null : <option value={value}>{value}</option>}
      {models.map((model) => (
        <option
          key={model.id}
          value={model.id}
          disabled={!model.available}
          title={model.available ? model.id : (model.reason ?? 'Not configured')}
        >
          {model.available ? model.id : `${model.id} — ${model.reason ?? 'not configured'}`}
        </option>
      ))}
    </select>
  )
}
