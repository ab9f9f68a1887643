// The shapes the Host sends (docs/protocol.md), as the UI uses them. All come from
// `@tangent/protocol`, the single source of truth shared with the Host and the CLI.
export type {
  BoardBranch,
  CheckResult,
  FileDiff,
  FilesRestoredData,
  FolderEntry,
  HostInfoResult as HostInfo,
  RpcClient,
  SessionBoardResult as BoardResult,
  SessionCompareResult as CompareResult,
  SessionEvent,
  SessionExploreParams as ExploreRequest,
  SessionFileAcrossResult as FileAcrossResult,
  SessionForkParams as ForkRequest,
  SessionKeepResult as KeepResult,
  SessionSummary,
  SessionUsage,
  TurnUsage,
  UsageSplit,
  Workspace,
  WorkspaceBrowseResult as BrowseResult,
} from '@tangent/protocol'
