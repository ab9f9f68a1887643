// @tangent/host: the Host — live agents, workspaces, JSON-RPC over WebSocket/HTTP, the web UI.
export { connectHost, rpcSocketUrl } from './connect-host.js'
export {
  discoveryFile,
  HostDiscovery,
  HostDiscoveryFile,
  readHostDiscovery,
  readHostDiscoveryFile,
} from './discovery.js'
export { connectHostApi, hostApi } from './host-api.js'
export {
  type HostOptions,
  type RunningHost,
  type ServeOptions,
  serveRuntime,
  startHost,
} from './start-host.js'
