// The store's own errors (codes beyond core's): each says what to do about it.
import { TangentError } from '@tangent/core'

export function sessionNotFound(id: string): TangentError {
  return new TangentError('session-not-found', `Session ${id} not found in this data directory.`, {
    sessionId: id,
  })
}

export function sessionExists(id: string): TangentError {
  return new TangentError('session-exists', `Session ${id} already exists on disk: load it instead.`, {
    sessionId: id,
  })
}

export function storeClosed(): TangentError {
  return new TangentError('store-closed', 'This JsonlStore is closed: open the data directory again.')
}

export function storeReadOnly(what: string): TangentError {
  return new TangentError(
    'store-read-only',
    `This JsonlStore was opened read-only and cannot ${what}: open it without readOnly (it takes the writer lock).`,
  )
}
