// @tangent/protocol: zod schemas and types of the Host JSON-RPC protocol (docs/protocol.md),
// and a transport-agnostic client. Runs in browsers: no Node modules here.

export * from './always-scope.js'
export * from './errors.js'
export * from './fast-params.js'
export * from './ids.js'
export * from './json-rpc.js'
export * from './limits.js'
export * from './methods.js'
export * from './notifications.js'
export * from './rpc-client.js'
export * from './types.js'
export * from './usage-text.js'
