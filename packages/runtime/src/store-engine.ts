// Chooses the storage engine (docs/architecture.md §4): TANGENT_STORE (or `tangent serve --store`)
// set to a `postgres://` URL opens the PostgreSQL engine; unset or empty, JSONL under TANGENT_HOME.
import {
  isPostgresUrl,
  redactUrl,
  type SessionPersistence,
  type StoreWarningLike,
  TangentError,
} from '@tangent/core'
import { JsonlStore } from '@tangent/store-jsonl'

export interface StoreEngineOptions {
  /** TANGENT_STORE: a PostgreSQL URL, or unset/empty for JSONL. */
  url: string | undefined
  /** TANGENT_HOME: the JSONL engine's data directory. */
  home: string
  readOnly: boolean
  /** TANGENT_LEASE_MS: how long a dead Host's claim lasts (PostgreSQL; default 15 s). */
  env?: Record<string, string | undefined>
  onWarning: (warning: StoreWarningLike) => void
  /** The largest event a log takes, as its JSON line (default 64 MiB); for tests. */
  maxEventBytes?: number | undefined
}

export async function openStoreEngine(options: StoreEngineOptions): Promise<SessionPersistence> {
  const url = options.url?.trim() ?? ''
  if (url === '') {
    return JsonlStore.open({
      dir: options.home,
      readOnly: options.readOnly,
      onWarning: options.onWarning,
      ...(options.maxEventBytes !== undefined ? { maxLineBytes: options.maxEventBytes } : {}),
    })
  }
  if (!isPostgresUrl(url)) {
    throw new TangentError(
      'invalid-config',
      `TANGENT_STORE is not a PostgreSQL URL: "${redactUrl(url)}". Use postgres://user@host:port/db (or postgres://user@/db?host=/socket/dir), or leave it unset for JSONL files under TANGENT_HOME.`,
      { store: redactUrl(url) },
    )
  }
  // Loaded only when asked for: a JSONL user never loads the database client.
  const { PostgresStore } = await import('@tangent/store-postgres')
  const leaseMs = Number(options.env?.TANGENT_LEASE_MS)
  return PostgresStore.open({
    url,
    readOnly: options.readOnly,
    onWarning: options.onWarning,
    ...(leaseMs > 0 ? { leaseMs } : {}),
    ...(options.maxEventBytes !== undefined ? { maxLineBytes: options.maxEventBytes } : {}),
  })
}
