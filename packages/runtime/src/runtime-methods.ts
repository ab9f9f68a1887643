// Every method of docs/protocol.md that is a session operation, mapped onto the runtime:
// the Host routes JSON-RPC to these, and the contract suite calls them in-process, so no
// front-end can grow its own version of an operation. (Subscriptions need a connection:
// the Host adapts them over `Runtime.subscribe`; file sources too, over `Runtime.attachFileSource`,
// and attached MCP servers over `Runtime.attachMcpServers`.)
import type { MethodName, MethodParams, MethodResult } from '@tangent/protocol'
import type { Runtime } from './runtime.js'

export type RuntimeMethodName = Exclude<MethodName, ConnectionMethodName>

/** Methods about the calling connection, which the Host serves itself (subscriptions, file sources, MCP servers, uploads). */
export type ConnectionMethodName =
  | 'session.subscribe'
  | 'session.unsubscribe'
  | 'session.attachFileSource'
  | 'session.detachFileSource'
  | 'session.answerReadFile'
  | 'session.attachMcpServers'
  | 'session.importBegin'
  | 'session.importChunk'

/** What a SessionApi calls: the runtime's methods, and attaching MCP servers (owned by the caller's connection). */
export type SessionApiMethodName = RuntimeMethodName | 'session.attachMcpServers'

export type RuntimeMethods = {
  [M in RuntimeMethodName]: (params: MethodParams<M>) => Promise<MethodResult<M>>
}

export function runtimeMethods(runtime: Runtime): RuntimeMethods {
  return {
    'host.info': async () => runtime.info(),
    'workspace.list': async () => runtime.listWorkspaces(),
    'workspace.open': (params) => runtime.openWorkspace(params),
    'workspace.browse': (params) => runtime.browseFolders(params),
    'session.list': (params) => runtime.listSessions(params),
    'session.get': (params) => runtime.getSession(params),
    'session.resolve': (params) => runtime.resolveSession(params),
    'session.create': (params) => runtime.createSession(params),
    'session.prompt': (params) => runtime.prompt(params),
    'session.abort': (params) => runtime.abort(params),
    'session.answerPermission': (params) => runtime.answerPermission(params),
    'session.fork': (params) => runtime.fork(params),
    'session.rename': (params) => runtime.rename(params),
    'session.archive': (params) => runtime.setArchived(params),
    'session.delete': (params) => runtime.delete(params),
    'session.export': (params) => runtime.exportSession(params),
    'session.import': (params) => runtime.importFile(params),
    'session.importFrom': (params) => runtime.importFrom(params),
    'session.setModel': (params) => runtime.setModel(params),
    'session.setMode': (params) => runtime.setMode(params),
    'session.compare': (params) => runtime.compare(params),
    'session.explore': (params) => runtime.explore(params),
    'session.board': (params) => runtime.board(params),
    'session.fileAcross': (params) => runtime.fileAcross(params),
    'session.keep': (params) => runtime.keep(params),
    'session.compact': (params) => runtime.compact(params),
    'snapshot.list': (params) => runtime.listSnapshots(params),
    'snapshot.restore': (params) => runtime.restore(params),
    'snapshot.undoRestore': (params) => runtime.undoRestore(params),
  }
}
