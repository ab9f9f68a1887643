// @tangent/protocol: zod schemas and types of the Host JSON-RPC protocol (docs/protocol.md),
// and a transport-agnostic client. Runs in browsers: no Node modules here.

export {
  defaultSessionMode,
  isSessionModeId,
  type SessionModeId,
  type SessionModeInfo,
  sessionModeIds,
  sessionModes,
} from '@tangent/core/session-modes'
export * from './always-scope.js'
export * from './attached-mcp-server.js'
export * from './errors.js'
export * from './fast-params.js'
export * from './ids.js'
export * from './import-chunks.js'
export * from './json-rpc.js'
export * from './limits.js'
export * from './methods.js'
export * from './notifications.js'
export * from './rpc-client.js'
export * from './types.js'
export * from './usage-text.js'
