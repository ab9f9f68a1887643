// host.info, workspace.list and workspace.open.
import type { HostContext } from '../host-context.js'
import type { MethodHandlers } from '../rpc-router.js'

export function hostMethods(
  context: HostContext,
): Pick<MethodHandlers, 'host.info' | 'workspace.list' | 'workspace.open'> {
  return {
    'host.info': async () => ({
      version: context.version,
      dataDir: context.home,
      defaultModel: context.defaultModel,
      models: context.models.list().map((model) => ({
        id: model.id,
        available: model.available,
        ...(model.reason !== undefined ? { reason: model.reason } : {}),
      })),
    }),
    'workspace.list': async () => context.workspaces.list(),
    'workspace.open': async (params) => context.workspaces.open(params.path),
  }
}
