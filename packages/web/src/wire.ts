// The shapes the Host sends (docs/protocol.md), as the UI uses them. All come from
// `@tangent/protocol`, the single source of truth shared with the Host and the CLI.
export type {
  FileDiff,
  FilesRestoredData,
  FolderEntry,
  HostInfoResult as HostInfo,
  RpcClient,
  SessionCompareResult as CompareResult,
  SessionEvent,
  SessionForkParams as ForkRequest,
  SessionSummary,
  SessionUsage,
  TurnUsage,
  UsageSplit,
  Workspace,
  WorkspaceBrowseResult as BrowseResult,
} from '@tangent/protocol'
