// session.attachMcpServers: a WebSocket connection's MCP servers join a session's tools
// (docs/architecture.md §14.3); the connection owns them, so they stop when it closes.
import type { Connection } from '../connections.js'
import type { HostContext } from '../host-context.js'
import type { MethodHandlers } from '../rpc-router.js'
import { requireConnection } from './subscriptions.js'

export function mcpAttachmentMethods(context: HostContext): Pick<MethodHandlers, 'session.attachMcpServers'> {
  const { runtime, hub, report } = context
  /** Connections whose close already ends their attachments. */
  const watched = new WeakSet<Connection>()
  return {
    'session.attachMcpServers': async (params, call) => {
      const connection = requireConnection(call, 'Attached MCP servers live as long as a WebSocket')
      const result = await runtime.attachMcpServers(params, connection)
      // Registered after the attach: a connection that closed meanwhile detaches at once.
      if (!watched.has(connection)) {
        watched.add(connection)
        hub.onRemove(connection, () => {
          runtime.detachMcpServers(connection).catch(report)
        })
      }
      return result
    },
  }
}
