// session.importBegin / session.importChunk, and session.import {uploadId}: a file larger than
// one message (1 MiB) reaches the runtime's import in pieces (docs/protocol.md). An upload belongs
// to the WebSocket connection that began it and ends with it; the pieces come in order; what all
// open uploads may hold is bounded (maxImportChars together), and an upload left without a piece
// for `uploadIdleMs` is dropped. The runtime then imports the joined text as it imports `content`.
import { randomUUID } from 'node:crypto'
import { TangentError } from '@tangent/core'
import { maxImportChars, maxImportChunkChars } from '@tangent/protocol'
import type { Connection } from '../connections.js'
import type { HostContext } from '../host-context.js'
import type { MethodHandlers } from '../rpc-router.js'
import { requireConnection } from './subscriptions.js'

/** An upload with no piece for this long is dropped (its id then answers `upload-not-found`). */
export const uploadIdleMs = 10 * 60 * 1000
/** Open uploads one connection may have at once. */
export const maxUploadsPerConnection = 8

interface Upload {
  readonly connection: Connection
  readonly fileName: string | undefined
  readonly size: number
  readonly chunks: string[]
  received: number
  timer: NodeJS.Timeout
}

const uploadNeedsWebSocket =
  'Uploads need a WebSocket (ws://HOST:PORT/rpc?token=TOKEN): an upload belongs to the connection that began it.'

export function uploadMethods(
  context: HostContext,
  options: { idleMs?: number } = {},
): Pick<MethodHandlers, 'session.importBegin' | 'session.importChunk' | 'session.import'> {
  const { runtime, hub } = context
  const idleMs = options.idleMs ?? uploadIdleMs
  const uploads = new Map<string, Upload>()
  /** Characters the open uploads said they would bring (their `size`s). */
  let reserved = 0

  const drop = (uploadId: string) => {
    const upload = uploads.get(uploadId)
    if (!upload) return
    clearTimeout(upload.timer)
    uploads.delete(uploadId)
    reserved -= upload.size
  }
  const idleTimer = (uploadId: string) => {
    const timer = setTimeout(() => drop(uploadId), idleMs)
    timer.unref()
    return timer
  }
  /** This connection's upload, or `upload-not-found` (another connection's is not found either). */
  const uploadOf = (connection: Connection, uploadId: string): Upload => {
    const upload = uploads.get(uploadId)
    if (!upload || upload.connection !== connection)
      throw new TangentError(
        'upload-not-found',
        `No upload ${JSON.stringify(uploadId.slice(0, 64))} on this connection: it was never begun here, or it was used, or it expired (${Math.round(idleMs / 1000)} s without a chunk).`,
        { uploadId: uploadId.slice(0, 64) },
      )
    return upload
  }
  const forget = (connection: Connection) => {
    for (const [uploadId, upload] of [...uploads]) if (upload.connection === connection) drop(uploadId)
  }
  const watched = new WeakSet<Connection>()

  return {
    'session.importBegin': async ({ fileName, size }, call) => {
      const connection = requireConnection(call, uploadNeedsWebSocket)
      let open = 0
      for (const upload of uploads.values()) if (upload.connection === connection) open++
      if (open >= maxUploadsPerConnection)
        throw new TangentError(
          'payload-too-large',
          `This connection has ${open} uploads open, the most it may have: finish one with session.import first.`,
          { limit: maxUploadsPerConnection },
        )
      if (reserved + size > maxImportChars)
        throw new TangentError(
          'payload-too-large',
          `The Host holds uploads of ${reserved} characters; another ${size} would pass what it holds at once (${maxImportChars}). Try again when they are imported.`,
          { limit: maxImportChars },
        )
      if (!watched.has(connection)) {
        watched.add(connection)
        hub.onRemove(connection, () => forget(connection))
      }
      const uploadId = randomUUID()
      uploads.set(uploadId, {
        connection,
        fileName,
        size,
        chunks: [],
        received: 0,
        timer: idleTimer(uploadId),
      })
      reserved += size
      return { uploadId, maxChunkChars: maxImportChunkChars }
    },

    'session.importChunk': async ({ uploadId, index, data }, call) => {
      const upload = uploadOf(requireConnection(call, uploadNeedsWebSocket), uploadId)
      if (index !== upload.chunks.length)
        throw new TangentError(
          'invalid-params',
          `Chunk ${index} of upload ${uploadId} out of order: the next one is ${upload.chunks.length}.`,
          { uploadId, expected: upload.chunks.length },
        )
      if (upload.received + data.length > upload.size) {
        drop(uploadId)
        throw new TangentError(
          'payload-too-large',
          `Upload ${uploadId} said ${upload.size} characters; this chunk brings it to ${upload.received + data.length}. The upload is dropped.`,
          { uploadId, limit: upload.size },
        )
      }
      upload.chunks.push(data)
      upload.received += data.length
      clearTimeout(upload.timer)
      upload.timer = idleTimer(uploadId)
      return { received: upload.received }
    },

    'session.import': async (params, call) => {
      if (params.uploadId === undefined) return runtime.importFile(params)
      const { uploadId, ...rest } = params
      const upload = uploadOf(requireConnection(call, uploadNeedsWebSocket), uploadId)
      if (upload.received !== upload.size)
        throw new TangentError(
          'invalid-params',
          `Upload ${uploadId} has ${upload.received} of its ${upload.size} characters: send the rest with session.importChunk first.`,
          { uploadId, received: upload.received, size: upload.size },
        )
      const content = upload.chunks.join('')
      drop(uploadId)
      return runtime.importFile({
        ...rest,
        content,
        ...(rest.fileName === undefined && upload.fileName !== undefined
          ? { fileName: upload.fileName }
          : {}),
      })
    },
  }
}
