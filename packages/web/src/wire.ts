// The shapes the Host sends (PROTOCOL.md), as the UI uses them. All come from
// `@tangent/protocol`, the single source of truth shared with the Host and the CLI.
export type {
  FileDiff,
  HostInfoResult as HostInfo,
  RpcClient,
  SessionCompareResult as CompareResult,
  SessionEvent,
  SessionForkParams as ForkRequest,
  SessionSummary,
  Workspace,
} from '@tangent/protocol'
