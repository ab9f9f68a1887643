// @tangent/agent: the agent loop, models (AI SDK providers + offline demo model) and tools.
export {
  Agent,
  type AgentOptions,
  type CompactResult,
  type DeltaListener,
  type PromptResult,
  type SnapshotResult,
} from './agent.js'
export { type ConfinedPath, confinePath, resolveWorkingDirectory } from './confine-path.js'
export {
  compactHistory,
  compactionBoundary,
  defaultCompactionThreshold,
  estimateContextTokens,
  overThreshold,
} from './context/compaction.js'
export { compactionRequest } from './context/compaction-request.js'
export { contextWindowOf, demoContextWindow } from './context/context-window.js'
export {
  type InstructionFile,
  maxInstructionFileBytes,
  readInstructionFiles,
  userInstructionsPath,
} from './context/instruction-files.js'
export { recordInstructions, systemPromptWithInstructions } from './context/instructions.js'
export { DemoLanguageModel, type DemoModelOptions } from './demo-model.js'
export { type DemoReply, type DemoToolCall, parseDemoCommand, planDemoReply } from './demo-script.js'
export { type HookCommandOptions, type HookCommandOutcome, runHookCommand } from './hooks/hook-command.js'
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
export type { HookToolCall, ToolCallHooks, ToolCallRefusal } from './hooks/tool-call-hooks.js'
export { McpConnection, type McpConnectionOptions } from './mcp/mcp-connection.js'
export {
  defaultMcpCallTimeoutMs,
  defaultMcpStartTimeoutMs,
  McpConfig,
  McpHttpServer,
  McpServerConfig,
  McpServerName,
  McpStdioServer,
  mcpTransportOf,
} from './mcp/mcp-server-config.js'
export { mcpServerOfToolName, mcpToolName } from './mcp/mcp-tool-name.js'
export { modelFactsOf, priceSource } from './model-facts.js'
export {
  defaultModelId,
  type ModelListing,
  ModelRegistry,
  type ModelRegistryOptions,
  providerNames,
} from './model-registry.js'
export type { AgentDelta } from './model-step.js'
export { aiSdk as loadModelSdk, warmModelStep } from './model-step.js'
export * from './permissions/index.js'
export {
  BashSandbox,
  type BashSandboxOptions,
  type CommandSandbox,
  type SandboxedCommand,
  type SandboxNetwork,
  type SandboxWrapOptions,
} from './sandbox/bash-sandbox.js'
export {
  type BashSandboxStatus,
  describeSandboxStatus,
  parseSandboxMode,
  type SandboxKind,
  type SandboxMode,
  type SandboxProbe,
  sandboxModes,
  sandboxStatusOf,
} from './sandbox/sandbox-status.js'
export type {
  AgentTool,
  AgentToolSet,
  FileDiff,
  FileSource,
  FileSourceAnswer,
  ToolContext,
  ToolOutcome,
  ToolSource,
} from './tools/agent-tool.js'
export { type BashSandboxSetting, type BashToolOptions, createBashTool } from './tools/bash.js'
export { createDefaultTools } from './tools/default-tools.js'
export { killGroup } from './tools/kill-group.js'
export {
  createTaskTool,
  maxTaskAnswerChars,
  type TaskAnswer,
  type TaskDelegate,
  TaskInput,
} from './tools/task.js'
