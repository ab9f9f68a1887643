// Every method of docs/protocol.md, bound to one Host: the session operations are the
// runtime's (runtimeMethods), the subscriptions, file sources, attached MCP servers and import uploads are per connection.
import { runtimeMethods } from '@tangent/runtime'
import type { HostContext } from '../host-context.js'
import type { MethodHandlers } from '../rpc-router.js'
import { fileSourceMethods } from './file-sources.js'
import { mcpAttachmentMethods } from './mcp-attachments.js'
import { subscriptionMethods } from './subscriptions.js'
import { uploadMethods } from './uploads.js'

export function createMethodHandlers(
  context: HostContext,
  options: { uploadIdleMs?: number } = {},
): MethodHandlers {
  return {
    ...runtimeMethods(context.runtime),
    ...subscriptionMethods(context),
    ...fileSourceMethods(context),
    ...mcpAttachmentMethods(context),
    ...uploadMethods(context, options.uploadIdleMs !== undefined ? { idleMs: options.uploadIdleMs } : {}),
  }
}
