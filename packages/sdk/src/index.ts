// @tangent/sdk: Tangent from a TypeScript program — sessions, turns, forks, explorations — in this
// process or through a running Host, typed from the protocol's schemas (packages/sdk/README.md).
export { type ErrorCode, TangentError } from '@tangent/core'
export type {
  BoardBranch,
  MethodName,
  MethodParams,
  MethodResult,
  SessionBoardResult,
  SessionCompareResult,
  SessionEvent,
  SessionExploreResult,
  SessionKeepResult,
  SessionSummary,
  SnapshotListResult,
  SnapshotRestoreResult,
  TurnEndReason,
} from '@tangent/protocol'
export { type ConnectOptions, type OpenOptions, Tangent } from './tangent.js'
export { type Exploration, TangentSession } from './tangent-session.js'
export { type PromptOptions, Turn, type TurnDelta, type TurnResult } from './turn.js'
