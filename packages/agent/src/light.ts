// @tangent/agent/light: what a runtime needs before its first turn (docs/architecture.md §9,
// start-up): the model registry and facts, permission rules, MCP server config, sandbox modes.
// No agent loop, tools, MCP client or OS sandbox: those load with the package's main entry,
// which the runtime imports when a session first needs an agent.
export { type ConfinedPath, confinePath, isInside, resolveWorkingDirectory } from './confine-path.js'
export { userInstructionsPath } from './context/instruction-files.js'
export {
  defaultHookTimeoutMs,
  HookEntry,
  type HookEventName,
  HooksConfig,
  hookEventNames,
  hookMatchesTool,
  maxHookTimeoutMs,
  toolHookEvents,
} from './hooks/hook-config.js'
export {
  defaultMcpCallTimeoutMs,
  defaultMcpStartTimeoutMs,
  McpConfig,
  McpServerConfig,
  mcpTransportOf,
} from './mcp/mcp-server-config.js'
export { mcpServerOfToolName, mcpToolName } from './mcp/mcp-tool-name.js'
export { modelFactsOf, priceSource } from './model-facts.js'
export { defaultModelId, type ModelListing, ModelRegistry, providerNames } from './model-registry.js'
export * from './permissions/index.js'
export {
  type BashSandboxStatus,
  describeSandboxStatus,
  parseSandboxMode,
  type SandboxMode,
  sandboxStatusOf,
} from './sandbox/sandbox-status.js'
export { loggedDiff, maxLoggedDiffChars } from './tools/agent-tool.js'
export { killGroup } from './tools/kill-group.js'
