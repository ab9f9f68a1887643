// Every method handler of PROTOCOL.md, bound to one Host's context.
import type { HostContext } from '../host-context.js'
import type { MethodHandlers } from '../rpc-router.js'
import { sessionCompareMethods } from './session-compare.js'
import { sessionForkMethods } from './session-fork.js'
import { sessionManageMethods } from './session-manage.js'
import { sessionTurnMethods } from './session-turns.js'
import { sessionMethods } from './sessions.js'
import { snapshotMethods } from './snapshots.js'
import { subscriptionMethods } from './subscriptions.js'
import { hostMethods } from './workspaces.js'

export function createMethodHandlers(context: HostContext): MethodHandlers {
  return {
    ...hostMethods(context),
    ...sessionMethods(context),
    ...subscriptionMethods(context),
    ...sessionTurnMethods(context),
    ...sessionForkMethods(context),
    ...sessionManageMethods(context),
    ...sessionCompareMethods(context),
    ...snapshotMethods(context),
  }
}
