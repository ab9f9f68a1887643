// The shapes the Host sends (PROTOCOL.md), as the UI uses them. Types only: they come
// from `@tangent/protocol` so the bundle carries no schema code it does not need.
export type {
  FileDiff,
  SessionEvent,
  SessionSummary,
  SnapshotEntry,
  TurnEndReason,
  Workspace,
} from '@tangent/protocol'

export interface ModelInfo {
  id: string
  available: boolean
  reason?: string | undefined
}

export interface HostInfo {
  version: string
  dataDir: string
  defaultModel: string
  models: ModelInfo[]
}
