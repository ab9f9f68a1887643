// @tangent/core: the event log, Session, SessionStore and fork, replay, typed errors, the group
// commit both store engines run. Pure: no I/O.
export { type ForkAnchor, resolveForkAnchor } from './anchor.js'
export { turnAnswerText } from './answer-text.js'
export { type ErrorCode, errorCodeList, errorCodes, isErrorCode } from './error-codes.js'
export { TangentError, type TangentErrorCode } from './errors.js'
export { EventIndex, indexedEventTypes } from './event-index.js'
export { eventTooLargeError, maxEventLineBytes, oversizedEventLineBytes } from './event-size.js'
export * from './events.js'
export { deepFreeze } from './freeze.js'
export {
  closingEventsForOpenTurn,
  type GrammarPhase,
  type GrammarSnapshot,
  GrammarState,
  grammarStateOf,
} from './grammar.js'
export {
  GroupCommit,
  type GroupCommitEngine,
  type GroupCommitTiming,
  type SessionCommitWriter,
  SessionWriters,
} from './group-commit.js'
export {
  assertValidSessionId,
  createSessionIdGenerator,
  isValidSessionId,
  type SessionId,
  sessionIdPattern,
} from './ids.js'
export { markersBefore, markersOf, noteMarker, type SessionMarkers } from './markers.js'
export { findParentLoops, type ParentLoops } from './parent-loops.js'
export type {
  RemoteChange,
  SessionPersistence,
  SnapshotObject,
  SnapshotObjectStore,
  StoredModelRef,
  StoredSession,
  StoreWarningLike,
} from './persistence.js'
export {
  base64Length,
  detectImageMediaType,
  isPromptImageMediaType,
  maxPromptImageBytes,
  maxPromptImages,
  maxPromptImagesTotalBytes,
  type PromptImage,
  type PromptImageMediaType,
  promptImageMediaTypes,
  promptImageParts,
} from './prompt-images.js'
export {
  compactionPreamble,
  currentModel,
  isReplayNote,
  latestCompaction,
  replayNoteOpening,
  toModelMessages,
  unansweredToolCallMessage,
} from './replay.js'
export {
  Session,
  type SessionHeader,
  type SessionHooks,
  type SessionMeta,
  type SessionOrigin,
} from './session.js'
export {
  defaultSessionMode,
  isSessionModeId,
  type SessionModeId,
  type SessionModeInfo,
  sessionModeIds,
  sessionModes,
} from './session-modes.js'
export {
  type CreateSessionOptions,
  type ForkOptions,
  openTurnAt,
  type SessionCreatedVia,
  SessionStore,
  type SessionStoreEvents,
  type SessionStoreOptions,
} from './store.js'
export { isPostgresUrl, redactUrl } from './store-url.js'
export {
  type ContextUsage,
  type ModelFacts,
  type ModelFactsLookup,
  type ModelPrice,
  type SessionUsage,
  stepCost,
  summarizeUsage,
  type TurnUsage,
  type UsageOptions,
  type UsageTotals,
} from './usage.js'
