// What the Host's method handlers share: the runtime (every session operation), the
// connections (broadcasts and per-connection subscriptions) and the sessions' fan-out.
import type { Runtime } from '@tangent/runtime'
import type { ConnectionHub } from './connections.js'
import type { SessionFanout } from './session-fanout.js'

export interface HostContext {
  readonly runtime: Runtime
  readonly hub: ConnectionHub
  /** Session events and deltas to their subscribers. */
  readonly fanout: SessionFanout
  /** Logs an unexpected error (the Host keeps running). */
  readonly report: (error: unknown) => void
}
