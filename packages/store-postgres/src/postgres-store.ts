// PostgresStore: the store contract on PostgreSQL (docs/architecture.md §4). Placeholder until the
// engine lands: opening it says so instead of pretending.
import { type SessionPersistence, type StoreWarningLike, TangentError } from '@tangent/core'

export interface PostgresStoreOptions {
  url: string
  readOnly?: boolean
  onWarning?: (warning: StoreWarningLike) => void
}

export const PostgresStore = {
  async open(_options: PostgresStoreOptions): Promise<SessionPersistence> {
    throw new TangentError('invalid-config', 'The PostgreSQL store is not built yet.')
  },
}
