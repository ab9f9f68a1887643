// The runtime's permission decider (docs/architecture.md §12.1): the config files that apply
// in the session's directory, the session's own `always` rules (from its log, so a fork has
// exactly those before its point) and the defaults for its model. A config that cannot be read
// fails closed: the call is denied with the reason, never run unasked. A project file's allow
// rules count only when the user config trusts that project (config.ts). Bash lines are parsed:
// the grammar loads (once) before the first bash call is decided, and a grammar that cannot load
// makes the call ask, with the reason. A file tool's path is decided where it really is (after
// the links inside the session's folder), and checked again when the tool opens it
// (filePathGuard).
import fs from 'node:fs/promises'
import path from 'node:path'
import {
  confinePath,
  decidePermission,
  exactLinePattern,
  fileRuleDenying,
  isFileTool,
  isInside,
  loadBashGrammar,
  type PathGuard,
  type PermissionDecider,
  type PermissionVerdict,
  permissionSubject,
} from '@tangent/agent/light'
import { TangentError } from '@tangent/core'
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
    const fileTool = isFileTool(request.toolName)
    const realPath = fileTool
      ? await realPathOf(request.cwd, permissionSubject(request.toolName, request.input))
      : undefined
    // Only a write can plant something in the repository's machinery: reads skip the look.
    const writes = request.toolName === 'write' || request.toolName === 'edit'
    const gitDirectories = writes ? await gitDirectoriesInside(request.cwd) : []
    const context = {
      cwd: request.cwd,
      rules: ruleSet.rules,
      sessionRules: request.sessionRules,
      defaults: request.modelId.startsWith('demo:') ? ('free' as const) : ('guarded' as const),
      bashSandboxed: request.toolName === 'bash' ? await bashSandboxed() : false,
      mode: request.mode,
      ...(realPath !== undefined ? { realPath } : {}),
      ...(gitDirectories.length > 0 ? { gitDirectories } : {}),
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

/**
 * The check a file tool makes with the real path it is about to open: the deny rules, and
 * Tangent's data directory when the session's folder holds it — nothing in it is written, names
 * it does not hold yet included, but a worktree fork's folder under its `worktrees/` (§12.2).
 */
export function filePathGuard(config: ConfigFiles, dataDirectory: string): PathGuard {
  const worktrees = path.join(dataDirectory, 'worktrees')
  return async ({ toolName, cwd, path: relative, access }) => {
    if (access === 'write') {
      const absolute = path.join(await fs.realpath(cwd), relative)
      if (isInside(dataDirectory, absolute) && !(isInside(worktrees, absolute) && absolute !== worktrees)) {
        throw new TangentError(
          'invalid-path',
          `${relative} is inside Tangent's data directory (${dataDirectory}), which holds the session logs: the agent may not write there.`,
          { path: relative },
        )
      }
    }
    const denied = fileRuleDenying(toolName, relative, (await config.permissionRules(cwd)).rules)
    if (!denied) return
    throw new TangentError(
      'tool-failed',
      `Permission denied: \`${denied.tool}: ${denied.pattern}\` is deny in ${denied.source} (for ${relative}). The tool did not run.`,
      { path: relative },
    )
  }
}

/** Where the path really is, relative to the cwd; none when it leads out (the tool refuses it). */
async function realPathOf(cwd: string, requested: string): Promise<string | undefined> {
  try {
    // Through a dangling link too: a write to where it points is asked about as that path.
    return (await confinePath(cwd, requested, { throughDanglingLinks: true })).relative
  } catch {
    // Outside, dangling or unreadable: the tool meets the same path and reports why.
    return undefined
  }
}

/**
 * The git dir and common dir of the repository holding `cwd`, relative to it, when a `.git` file
 * (the nearest, from `cwd` up) points inside `cwd` under another name; a `.git` folder is covered
 * by its name. Unreadable files count as none: git would not find them either.
 */
async function gitDirectoriesInside(cwd: string): Promise<string[]> {
  const root = await fs.realpath(cwd).catch(() => null)
  if (root === null) return []
  for (let folder = root; ; folder = path.dirname(folder)) {
    const dotGit = path.join(folder, '.git')
    const stat = await fs.lstat(dotGit).catch(() => null)
    if (stat?.isFile()) {
      const gitdir = /^gitdir:\s*(.+?)\s*$/m.exec(await fs.readFile(dotGit, 'utf8').catch(() => ''))?.[1]
      if (gitdir === undefined) return []
      const gitDir = await fs.realpath(path.resolve(folder, gitdir)).catch(() => null)
      if (gitDir === null) return []
      const common = (await fs.readFile(path.join(gitDir, 'commondir'), 'utf8').catch(() => '')).trim()
      const commonDir =
        common === '' ? null : await fs.realpath(path.resolve(gitDir, common)).catch(() => null)
      return [gitDir, commonDir]
        .filter((dir): dir is string => dir !== null && isInside(root, dir) && dir !== root)
        .map((dir) => path.relative(root, dir).split(path.sep).join('/'))
    }
    if (stat !== null || path.dirname(folder) === folder) return []
  }
}
