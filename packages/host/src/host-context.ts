// What the Host's method handlers share: the runtime (every session operation) and the
// connections (broadcasts and per-connection subscriptions).
import type { Runtime } from '@tangent/runtime'
import type { ConnectionHub } from './connections.js'

export interface HostContext {
  readonly runtime: Runtime
  readonly hub: ConnectionHub
  /** Logs an unexpected error (the Host keeps running). */
  readonly report: (error: unknown) => void
}
