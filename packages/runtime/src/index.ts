// @tangent/runtime: the one implementation of every session operation, over the store, file
// state, models and live agents (docs/architecture.md §1). Front-ends (the Host, the CLI) adapt it.

// The session modes (§12.1), defined once in core so the browser's protocol package shares them.
export {
  defaultSessionMode,
  isSessionModeId,
  type SessionModeId,
  type SessionModeInfo,
  sessionModeIds,
  sessionModes,
} from '@tangent/core'
export type { McpAttachmentOwner } from './attached-mcp-servers.js'
export type { ExportedLines } from './bundle.js'
// The functions of the bundle format, tool export formats, import detection and migration are in
// `@tangent/runtime/transfer` (transfer.ts): only import, export and migrate use them. Their types
// stay here.
export type { BundleDescription, BundleSessionHeader } from './bundle-format.js'
export {
  ConfigFiles,
  type LoadedConfig,
  type PermissionRuleSet,
  projectFolder,
  TangentConfigFile,
  userConfigPath,
} from './config.js'
export type { ToolExportFormat, ToolSessionFile } from './exports/export-types.js'
export { defaultFileSourceTimeoutMs, type FileReader } from './file-sources.js'
export { browseFolders, realFolder, resolveFolderPath } from './folders.js'
export { sessionNotFound } from './fork-point.js'
export { headerMetaOf, type SessionHeaderMeta } from './header-meta.js'
export type { ImportDetector } from './imports/detect.js'
export type {
  ImportedSessionRef,
  ImportTreeOptions,
  ImportTreeResult,
} from './imports/import-tree.js'
export type {
  ImportedEntry,
  ImportedSubtree,
  ImportedToolCall,
  ImportedTree,
  ImportedUsage,
  ImportSource,
} from './imports/imported-tree.js'
export { type McpServerListing, McpServers } from './mcp-servers.js'
export type { MigrateOptions, MigrateResult } from './migrate.js'
export { Runtime, type RuntimeOptions, type SessionListener } from './runtime.js'
export type { RuntimeEventMap, RuntimeEventName, SharedActivity } from './runtime-events.js'
export {
  type RuntimeMethodName,
  type RuntimeMethods,
  runtimeMethods,
  type SessionApiMethodName,
} from './runtime-methods.js'
export { inProcessApi, invalidParams, type SessionApi, type SessionsChange } from './session-api.js'
export { type HookListing, listHooks } from './session-hooks.js'
export { toSessionSummary } from './session-summary.js'
export { toolHomeDir } from './tool-homes.js'
export { workspacesProblem } from './workspaces.js'
export { writeFileAtomic } from './write-file-atomic.js'
