// The PostgreSQL engine's errors: each says what to do about it (docs/architecture.md §4).
import { TangentError } from '@tangent/core'

export function sessionNotFound(id: string): TangentError {
  return new TangentError('session-not-found', `Session ${id} not found in the database.`, { sessionId: id })
}

export function sessionExists(id: string): TangentError {
  return new TangentError(
    'session-exists',
    `Session ${id} already exists in the database: load it instead.`,
    {
      sessionId: id,
    },
  )
}

export function storeClosed(): TangentError {
  return new TangentError('store-closed', 'This PostgresStore is closed: open the database again.')
}

export function storeReadOnly(what: string): TangentError {
  return new TangentError(
    'store-read-only',
    `This PostgresStore was opened read-only and cannot ${what}: open it without readOnly.`,
  )
}

/** Another process holds (or took over) the session's lease. */
export function sessionBusy(id: string, holder: string | null, why?: string): TangentError {
  const who = holder ? `the Host ${holder}` : 'another Host'
  return new TangentError(
    'session-busy',
    why ??
      `Session ${id} is being written by ${who}: wait for its turn to end (or for that Host to stop), then try again.`,
    { sessionId: id, ...(holder ? { holder } : {}) },
  )
}

export function storeUnreachable(location: string, cause: unknown): TangentError {
  const reason = cause instanceof Error ? cause.message : String(cause)
  return new TangentError(
    'store-unreachable',
    `Cannot use the PostgreSQL database ${location}: ${reason}. Check TANGENT_STORE (postgres://user@host:port/db, or postgres://user@/db?host=/socket/dir) and that the server runs and accepts this user.`,
    { store: location },
    { cause },
  )
}

/**
 * True when a query failed because the connection did (the server restarted, the network went):
 * the work may be retried on a new connection. Whether a COMMIT in flight took effect is unknown.
 */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string') {
    if (
      /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|ENOENT)$/.test(
        code,
      )
    )
      return true
    // 08: connection exception; 57P01-03: admin/crash shutdown, cannot connect now; 53300: too many connections;
    // 40001/40P01: serialization failure, deadlock (the transaction may simply run again).
    if (/^(08...|57P0[123]|53300|40001|40P01)$/.test(code)) return true
  }
  return /Connection terminated|Client has encountered a connection error|not queryable|timeout exceeded when trying to connect/i.test(
    error.message,
  )
}
