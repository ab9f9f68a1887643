// Server → client notifications of docs/protocol.md (WebSocket only) and their params.
import { lazySchema } from '@tangent/core/lazy-zod'
import type { z } from 'zod'
import { SessionId } from './ids.js'
import { DeltaKind, SessionEvent, SessionSummary } from './types.js'

export const SessionCreatedNotification = lazySchema((z) => z.object({ session: SessionSummary }))
export type SessionCreatedNotification = z.infer<typeof SessionCreatedNotification>
export const SessionUpdatedNotification = lazySchema((z) => z.object({ session: SessionSummary }))
export type SessionUpdatedNotification = z.infer<typeof SessionUpdatedNotification>
export const SessionDeletedNotification = lazySchema((z) => z.object({ sessionId: SessionId }))
export type SessionDeletedNotification = z.infer<typeof SessionDeletedNotification>
/** To subscribers of the session, in seq order, without gaps. */
export const SessionEventNotification = lazySchema((z) =>
  z.object({ sessionId: SessionId, event: SessionEvent }),
)
export type SessionEventNotification = z.infer<typeof SessionEventNotification>
/** Streaming text of the running step (not part of the log). */
export const SessionDeltaNotification = lazySchema((z) =>
  z.object({
    sessionId: SessionId,
    kind: DeltaKind,
    text: z.string(),
    /** `tool-input` and `tool-start`: the tool call the delta belongs to. */
    toolCallId: z.string().optional(),
  }),
)
export type SessionDeltaNotification = z.infer<typeof SessionDeltaNotification>
/** Two or more sessions run turns in one directory at once. */
export const FilesSharedActivityNotification = lazySchema((z) =>
  z.object({ cwd: z.string(), sessionIds: z.array(SessionId) }),
)
export type FilesSharedActivityNotification = z.infer<typeof FilesSharedActivityNotification>

/**
 * Extension: to the connection that attached a file source to the session (`session.attachFileSource`):
 * the text of `path` (absolute, inside the session's folder), answered with `session.answerReadFile`.
 */
export const SessionReadFileNotification = lazySchema((z) =>
  z.object({ requestId: z.string(), sessionId: SessionId, path: z.string() }),
)
export type SessionReadFileNotification = z.infer<typeof SessionReadFileNotification>

/** Notification name → its params schema. */
export const notifications = {
  'session.created': SessionCreatedNotification,
  'session.updated': SessionUpdatedNotification,
  'session.deleted': SessionDeletedNotification,
  'session.event': SessionEventNotification,
  'session.delta': SessionDeltaNotification,
  'files.sharedActivity': FilesSharedActivityNotification,
  'session.readFile': SessionReadFileNotification,
} as const

export type Notifications = typeof notifications
export type NotificationName = keyof Notifications
export type NotificationParams<N extends NotificationName> = z.output<Notifications[N]>
