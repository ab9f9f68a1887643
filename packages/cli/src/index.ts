// tangent: the `tangent` command as a library (tests and embedders run it in-process).
export type { Backend, ForkRequest, TurnObserver } from './backend.js'
export type { CliContext, OutputStream } from './context.js'
export type { OpenedApi } from './failover-api.js'
export { resolveHome } from './home.js'
export { type OpenBackendOptions, type OpenContext, openBackend, openSessionApi } from './open-backend.js'
export { createProgram, runCli } from './program.js'
