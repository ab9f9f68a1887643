// @tangent/files: file state of sessions: snapshots in a shadow git repo, safe restore,
// worktree forks and diffs. Needs the system `git` (2.25+).
export type { DiffOptions, FileDiff } from './diff.js'
export { defaultMaxFileBytes, FileState, type FileStateOptions, type GcResult } from './file-state.js'
export { gitEnvironment } from './git.js'
export type { TreeMerge } from './merge.js'
export type { RestoreOptions, RestoreResult, RestoreTreeOptions } from './restore.js'
export type { RecoveredRestore } from './restore-journal.js'
export { emptyTree } from './shadow-repository.js'
export type { Snapshot, TurnStartSnapshot } from './snapshot.js'
export { type SessionLike, snapshotEventTypes, type TimelineEntry, timeline, treeAt } from './timeline.js'
export type {
  CreatedWorktree,
  ReconcileResult,
  RemoveWorktreeOptions,
  RemoveWorktreeResult,
} from './worktree.js'
