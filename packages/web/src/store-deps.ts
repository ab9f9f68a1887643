// What each concern's store is given (see HostStore): the one state, the client of the current
// connection (it throws before `start()`), and the notices its errors go to.
import type { NoticesStore } from './notices-store.js'
import type { StoreState } from './store-state.js'
import type { RpcClient } from './wire.js'

export interface StoreDeps {
  readonly state: StoreState
  readonly client: () => RpcClient
  readonly notices: NoticesStore
}
