// The runtime's permission decider (docs/architecture.md §12.1): the config files that apply
// in the session's directory, the session's own `always` rules (from its log, so a fork has
// exactly those before its point) and the defaults for its model. A config that cannot be read
// fails closed: the call is denied with the reason, never run unasked.
import { decidePermission, type PermissionDecider, type PermissionVerdict } from '@tangent/agent/light'
import type { ConfigFiles } from './config.js'

export function permissionDecider(
  config: ConfigFiles,
  bashSandboxed: () => Promise<boolean>,
): PermissionDecider {
  return async (request): Promise<PermissionVerdict> => {
    let rules: Awaited<ReturnType<ConfigFiles['permissionRules']>>
    try {
      rules = await config.permissionRules(request.cwd)
    } catch (error) {
      return { action: 'deny', pattern: '', reason: error instanceof Error ? error.message : String(error) }
    }
    return decidePermission(request.toolName, request.input, {
      cwd: request.cwd,
      rules,
      sessionRules: request.sessionRules,
      defaults: request.modelId.startsWith('demo:') ? 'free' : 'guarded',
      bashSandboxed: request.toolName === 'bash' ? await bashSandboxed() : false,
    })
  }
}
