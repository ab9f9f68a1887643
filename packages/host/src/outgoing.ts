// Messages to clients, serialised once: a notification for many connections is one Buffer
// (JSON text) that every socket sends as it is.
import type { NotificationName, NotificationParams } from '@tangent/protocol'

export function encodeNotification<N extends NotificationName>(
  method: N,
  params: NotificationParams<N>,
): Buffer {
  return Buffer.from(JSON.stringify({ jsonrpc: '2.0', method, params }))
}
