// Every method of docs/protocol.md, bound to one Host: the session operations are the
// runtime's (runtimeMethods), the subscriptions are per connection.
import { runtimeMethods } from '@tangent/runtime'
import type { HostContext } from '../host-context.js'
import type { MethodHandlers } from '../rpc-router.js'
import { subscriptionMethods } from './subscriptions.js'

export function createMethodHandlers(context: HostContext): MethodHandlers {
  return { ...runtimeMethods(context.runtime), ...subscriptionMethods(context) }
}
