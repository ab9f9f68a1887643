// The runtime's permission decider (docs/architecture.md §12.1): the config files that apply
// in the session's directory, the session's own `always` rules (from its log, so a fork has
// exactly those before its point) and the defaults for its model. A config that cannot be read
// fails closed: the call is denied with the reason, never run unasked. A project file's allow
// rules count only when the user config trusts that project (config.ts). Bash lines are parsed:
// the grammar loads (once) before the first bash call is decided, and a grammar that cannot load
// makes the call ask, with the reason.
import {
  decidePermission,
  exactLinePattern,
  loadBashGrammar,
  type PermissionDecider,
  type PermissionVerdict,
  permissionSubject,
} from '@tangent/agent/light'
import type { ConfigFiles, PermissionRuleSet } from './config.js'

export function permissionDecider(
  config: ConfigFiles,
  bashSandboxed: () => Promise<boolean>,
): PermissionDecider {
  return async (request): Promise<PermissionVerdict> => {
    let ruleSet: PermissionRuleSet
    try {
      ruleSet = await config.permissionRules(request.cwd)
    } catch (error) {
      return { action: 'deny', pattern: '', reason: error instanceof Error ? error.message : String(error) }
    }
    if (request.toolName === 'bash') {
      try {
        await loadBashGrammar()
      } catch (error) {
        const pattern = exactLinePattern(permissionSubject('bash', request.input))
        return { action: 'ask', pattern, reason: error instanceof Error ? error.message : String(error) }
      }
    }
    const context = {
      cwd: request.cwd,
      rules: ruleSet.rules,
      sessionRules: request.sessionRules,
      defaults: request.modelId.startsWith('demo:') ? ('free' as const) : ('guarded' as const),
      bashSandboxed: request.toolName === 'bash' ? await bashSandboxed() : false,
    }
    const verdict = decidePermission(request.toolName, request.input, context)
    if (verdict.action !== 'ask' || ruleSet.untrustedFolders.length === 0) return verdict
    // Say why a project's allow did not count, so the user knows what would change it.
    const ifTrusted = decidePermission(request.toolName, request.input, {
      ...context,
      rules: ruleSet.rulesIfTrusted,
    })
    if (ifTrusted.action !== 'allow') return verdict
    const folders = ruleSet.untrustedFolders.map((folder) => JSON.stringify(folder)).join(', ')
    return {
      ...verdict,
      reason:
        `${verdict.reason}; the project config would allow it (${ifTrusted.reason}), but its allow rules ` +
        `count only when the user config trusts the project: add "trustProjects": [${folders}] to ${config.userPath}`,
    }
  }
}
