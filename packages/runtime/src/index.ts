// @tangent/runtime: the one implementation of every session operation, over the store, file
// state, models and live agents (docs/architecture.md §1). Front-ends (the Host, the CLI) adapt it.
export {
  ConfigFiles,
  type LoadedConfig,
  type PermissionRuleSet,
  projectFolder,
  TangentConfigFile,
  userConfigPath,
} from './config.js'
export { browseFolders, realFolder, resolveFolderPath } from './folders.js'
export { sessionNotFound } from './fork-point.js'
export { headerMetaOf, type SessionHeaderMeta } from './header-meta.js'
export { type McpServerListing, McpServers } from './mcp-servers.js'
export { type MigrateOptions, type MigrateResult, migrateSessions } from './migrate.js'
export { Runtime, type RuntimeOptions, type SessionListener } from './runtime.js'
export type { RuntimeEventMap, RuntimeEventName, SharedActivity } from './runtime-events.js'
export { type RuntimeMethodName, type RuntimeMethods, runtimeMethods } from './runtime-methods.js'
export { inProcessApi, invalidParams, type SessionApi } from './session-api.js'
export { toSessionSummary } from './session-summary.js'
export { workspacesProblem } from './workspaces.js'
export { writeFileAtomic } from './write-file-atomic.js'
