// The permission policy (docs/architecture.md §12.1): for each tool call, `allow`, `ask` or
// `deny`, from rules given by the user config, the project config, run flags and the session's
// own "always" answers (events in its log, so a fork inherits exactly those before its point).
import path from 'node:path'
import type { SessionModeId } from '@tangent/core'
import { analyzeBashCommand, type BashCommandLine } from './bash-command.js'
import {
  allowPatternCovers,
  allowPatternCoversCommand,
  exactLinePattern,
  proposeBashPattern,
  restrictivePatternMatches,
  restrictivePatternMatchesCommand,
} from './bash-rules.js'

export type PermissionAction = 'allow' | 'ask' | 'deny'

/** One tool's setting: an action for every call, or actions by pattern (`*` is the fallback). */
export type ToolPermission = PermissionAction | Record<string, PermissionAction>

/** `permission` in a config file: tool name (or `*` for any tool) → setting. */
export type PermissionConfig = Record<string, ToolPermission>

export interface PermissionRule {
  tool: string
  pattern: string
  action: PermissionAction
  /** Where the rule comes from, for the reason shown with a decision. */
  source: string
}

export interface PermissionVerdict {
  action: PermissionAction
  /** What an `always` answer would allow (command prefix for bash, path glob for file tools). */
  pattern: string
  /** Why, in words: the rule and its source, or the default. */
  reason: string
  /** File tools: the real path decided on (`DecideContext.realPath`), which the tool must then open. */
  realPath?: string
}

export interface DecideContext {
  /** The session's directory: file paths in rules are relative to it. */
  cwd: string
  /** Rules that win over the defaults, first source first (flags, then project, then user). */
  rules: readonly PermissionRule[]
  /** The session's own `always` answers (allow rules). */
  sessionRules: readonly { tool: string; pattern: string }[]
  /** The defaults: `free` lets everything run (the offline demo model), `guarded` is for real providers. */
  defaults: 'free' | 'guarded'
  /** Whether the bash tool runs in an OS sandbox (then the guarded default allows it). */
  bashSandboxed: boolean
  /**
   * File tools: where the path really is, relative to `cwd` after the links inside it
   * (`confinePath`); absent, the path as written. A deny matching either path denies; only rules
   * and `always` answers matching the real path allow, so a link cannot carry a call past a rule.
   */
  realPath?: string
  /**
   * The session's repository's git directories (its git dir and common dir) when they lie inside
   * `cwd` under a name other than `.git` (a `.git` file saying `gitdir: meta`): real paths relative
   * to `cwd`, written to only when asked, like `.git`.
   */
  gitDirectories?: readonly string[]
  /**
   * The session's mode (absent: `edit`). `plan` refuses every tool but read, list and grep, whatever
   * a rule or `always` answer says; `ask` makes every other tool ask where only the defaults would
   * allow it; `edit` is the policy as it is.
   */
  mode?: SessionModeId
}

const readTools = new Set(['read', 'list', 'grep'])
const fileTools = new Set(['read', 'write', 'edit', 'list', 'grep'])

/** The subject a rule's pattern is matched against: the command for bash, the path for file tools. */
export function permissionSubject(toolName: string, input: unknown): string {
  const record = (input ?? {}) as Record<string, unknown>
  if (toolName === 'bash') return typeof record.command === 'string' ? record.command : ''
  if (fileTools.has(toolName)) return typeof record.path === 'string' ? record.path : '.'
  return JSON.stringify(input ?? null)
}

export function decidePermission(
  toolName: string,
  input: unknown,
  context: DecideContext,
): PermissionVerdict {
  const subject = permissionSubject(toolName, input)
  // Plan mode before anything else: no rule, `always` answer or default can allow a change.
  if (context.mode === 'plan' && !readTools.has(toolName)) return planModeRefusal(toolName, subject)
  if (toolName === 'bash') return decideBash(subject, context)
  const pattern = '**'
  const verdict = (action: PermissionAction, reason: string): PermissionVerdict => ({
    action,
    pattern,
    reason,
  })
  return decideOtherTool(toolName, subject, context, verdict)
}

function planModeRefusal(toolName: string, subject: string): PermissionVerdict {
  return {
    action: 'deny',
    pattern: toolName === 'bash' ? exactLinePattern(subject) : '**',
    reason:
      `the session is in plan mode (read-only): only read, list and grep run, so ${toolName} may not. ` +
      'Describe the change instead; the user switches modes to let it run (`tangent mode SESSION edit`, `/mode edit`, or the mode picker)',
  }
}

/** File tools and the rest (MCP): deny, the repository's machinery, `always` answers, rules, defaults. */
function decideOtherTool(
  toolName: string,
  subject: string,
  context: DecideContext,
  verdict: (action: PermissionAction, reason: string) => PermissionVerdict,
): PermissionVerdict {
  const isFileTool = fileTools.has(toolName)
  const requested = isFileTool ? relativeToCwd(subject, context.cwd) : subject
  const real = isFileTool ? (context.realPath ?? requested) : subject
  const decided = (action: PermissionAction, reason: string): PermissionVerdict =>
    isFileTool ? { ...verdict(action, reason), realPath: real } : verdict(action, reason)
  const matchesRequested = (rulePattern: string) =>
    matchesSubject(toolName, subject, rulePattern, context.cwd)
  const matchesReal = (rulePattern: string) =>
    isFileTool ? matchesRelativePath(real, rulePattern) : matchesRequested(rulePattern)
  const denied = context.rules.find(
    (rule) =>
      appliesTo(rule, toolName) &&
      rule.action === 'deny' &&
      (matchesRequested(rule.pattern) || matchesReal(rule.pattern)),
  )
  if (denied) return decided('deny', ruleReason(denied))
  // The repository's machinery and the project's own Tangent config: git runs `.git/hooks` and
  // honours `.git/config` outside any sandbox, and `.tangent/` holds the rules that bind the agent.
  // Writing there always asks — no rule or `always` answer silences it — and an `always` keeps
  // only that exact path (docs/architecture.md §12.1).
  // Compared without regard to case, as isMachinery: some file systems fold it.
  const realFolded = real.toLowerCase()
  const inGitDirectory = (context.gitDirectories ?? []).some((folder) => {
    const folded = folder.toLowerCase()
    return realFolded === folded || realFolded.startsWith(`${folded}/`)
  })
  if (
    (toolName === 'write' || toolName === 'edit') &&
    (isMachinery(requested) || isMachinery(real) || inGitDirectory)
  ) {
    return {
      action: 'ask',
      pattern: real,
      reason: `${real} is the repository's machinery (.git) or the project config (.tangent/): never changed unasked`,
      realPath: real,
    }
  }
  if (context.sessionRules.some((rule) => rule.tool === toolName && matchesReal(rule.pattern)))
    return decided('allow', `allowed always in this session (${toolName})`)
  const rule = bestRule(context.rules, toolName, matchesReal)
  // An `ask` naming the path as written (not the catch-all) still asks when it leads elsewhere.
  const askedAsWritten =
    real === requested
      ? undefined
      : bestRule(
          context.rules,
          toolName,
          (rulePattern) => !isCatchAll(rulePattern) && matchesRequested(rulePattern),
        )
  if (askedAsWritten?.action === 'ask') return decided('ask', ruleReason(askedAsWritten))
  if (rule) return decided(rule.action, ruleReason(rule))
  if (context.mode === 'ask' && !readTools.has(toolName))
    return decided('ask', `${toolName} asks first: the session is in ask mode`)
  if (context.defaults === 'free') return decided('allow', 'the demo model runs freely')
  if (readTools.has(toolName) || toolName === 'write' || toolName === 'edit')
    return decided('allow', `${toolName} inside the session's directory is allowed by default`)
  return decided('ask', `${toolName} asks by default`)
}

/** The file tools' names: their subject is a path, which the runtime resolves (`DecideContext.realPath`). */
export function isFileTool(toolName: string): boolean {
  return fileTools.has(toolName)
}

/**
 * The deny rule that refuses `toolName` on the real path `relative` (relative to the cwd), if any:
 * what a file tool re-checks when it opens the path (`ToolContext.checkRealPath`).
 */
export function fileRuleDenying(
  toolName: string,
  relative: string,
  rules: readonly PermissionRule[],
): PermissionRule | undefined {
  return rules.find(
    (rule) =>
      appliesTo(rule, toolName) && rule.action === 'deny' && matchesRelativePath(relative, rule.pattern),
  )
}

/** A path with a `.git` or `.tangent` component (any case: some file systems fold it). */
function isMachinery(relative: string): boolean {
  return relative.split('/').some((part) => {
    const name = part.toLowerCase()
    return name === '.git' || name === '.tangent'
  })
}

function relativeToCwd(subject: string, cwd: string): string {
  return path.relative(cwd, path.resolve(cwd, subject)).split(path.sep).join('/') || '.'
}

function matchesRelativePath(relative: string, pattern: string): boolean {
  return isCatchAll(pattern) || globToRegExp(pattern).test(relative)
}

function isCatchAll(pattern: string): boolean {
  return pattern === '*' || pattern === '**'
}

/**
 * Bash (§12.1): the line is parsed (bash-command.ts). A deny or ask rule matches any command it may
 * run, however spelled; an allow rule (config, flag or `always`) covers a plain line only, every
 * simple command of it. Until loadBashGrammar() has run nothing is known and the line asks.
 */
function decideBash(line: string, context: DecideContext): PermissionVerdict {
  const analysis = analyzeBashCommand(line)
  const pattern = proposeBashPattern(line, analysis)
  const verdict = (action: PermissionAction, reason: string): PermissionVerdict => ({
    action,
    pattern,
    reason,
  })
  if (!analysis.parsed)
    return verdict('ask', 'the bash grammar is not loaded, so the command cannot be checked')
  let unsure: PermissionRule | undefined
  for (const rule of context.rules) {
    if (rule.action !== 'deny' || !appliesTo(rule, 'bash')) continue
    const match = restrictivePatternMatches(rule.pattern, line, analysis)
    if (match === 'yes') return verdict('deny', ruleReason(rule))
    if (match === 'maybe') unsure ??= rule
  }
  // A command whose name (or words) cannot be known before it runs might be the denied one.
  if (unsure)
    return verdict(
      'ask',
      `${ruleReason(unsure)}, and the line runs a command that cannot be named before it runs`,
    )
  const inSession = (covers: (pattern: string) => boolean) =>
    context.sessionRules.some((rule) => rule.tool === 'bash' && covers(rule.pattern))
  const sessionReason = 'allowed always in this session (bash)'
  if (analysis.opaque !== null) {
    if (inSession((rulePattern) => allowPatternCovers(rulePattern, line, analysis)))
      return verdict('allow', sessionReason)
    const rule = bestRule(context.rules, 'bash', (rulePattern, candidate) =>
      candidate.action === 'allow'
        ? allowPatternCovers(rulePattern, line, analysis)
        : restrictivePatternMatches(rulePattern, line, analysis) !== 'no',
    )
    if (rule) return verdict(rule.action, ruleReason(rule))
    return bashDefault(context, analysis, verdict)
  }
  const perCommand = analysis.commands.map((command) => {
    if (inSession((rulePattern) => allowPatternCoversCommand(rulePattern, command, line)))
      return { action: 'allow' as const, reason: sessionReason }
    const rule = bestRule(context.rules, 'bash', (rulePattern, candidate) =>
      candidate.action === 'allow'
        ? allowPatternCoversCommand(rulePattern, command, line)
        : restrictivePatternMatchesCommand(rulePattern, command, line) !== 'no',
    )
    return rule ? { action: rule.action, reason: ruleReason(rule) } : null
  })
  if (perCommand.every((decision) => decision?.action === 'allow'))
    return verdict('allow', perCommand[0]!.reason)
  const asked = perCommand.find((decision) => decision?.action === 'ask')
  if (asked) return verdict('ask', asked.reason)
  return bashDefault(context, analysis, verdict)
}

function bashDefault(
  context: DecideContext,
  analysis: BashCommandLine,
  verdict: (action: PermissionAction, reason: string) => PermissionVerdict,
): PermissionVerdict {
  if (context.mode === 'ask') return verdict('ask', 'bash asks first: the session is in ask mode')
  if (context.defaults === 'free') return verdict('allow', 'the demo model runs freely')
  if (context.bashSandboxed) return verdict('allow', 'bash runs in the sandbox')
  if (analysis.opaque !== null)
    return verdict('ask', `the command holds ${analysis.opaque}, which no command-prefix rule vouches for`)
  return verdict('ask', 'bash asks by default when it cannot run sandboxed')
}

/** A rule's tool is a name, `*` (any tool) or a prefix ending in `*` (`mcp__github__*`: one MCP server's tools). */
function appliesTo(rule: { tool: string }, toolName: string): boolean {
  if (rule.tool === toolName || rule.tool === '*') return true
  return rule.tool.endsWith('*') && toolName.startsWith(rule.tool.slice(0, -1))
}

/** The first source's most specific matching rule (longest pattern; `*` is the least specific). */
function bestRule(
  rules: readonly PermissionRule[],
  toolName: string,
  matches: (pattern: string, rule: PermissionRule) => boolean,
): PermissionRule | undefined {
  let best: PermissionRule | undefined
  for (const rule of rules) {
    if (!appliesTo(rule, toolName) || !matches(rule.pattern, rule)) continue
    if (best && best.source !== rule.source) break
    if (!best || specificity(rule) > specificity(best)) best = rule
  }
  return best
}

function specificity(rule: PermissionRule): number {
  const named = rule.tool === '*' ? 0 : rule.tool.endsWith('*') ? 1 : 2
  return named * 10_000 + (rule.pattern === '*' ? 0 : rule.pattern.length + 1)
}

function ruleReason(rule: PermissionRule): string {
  return `\`${rule.tool}: ${rule.pattern}\` is ${rule.action} in ${rule.source}`
}

function matchesSubject(toolName: string, subject: string, pattern: string, cwd: string): boolean {
  if (!fileTools.has(toolName))
    return pattern === '*' || pattern === '**' || globToRegExp(pattern).test(subject)
  return matchesRelativePath(relativeToCwd(subject, cwd), pattern)
}

const globCache = new Map<string, RegExp>()

/** `**` crosses folders, `*` and `?` do not; `dir/**` also matches `dir` itself. */
export function globToRegExp(glob: string): RegExp {
  const cached = globCache.get(glob)
  if (cached) return cached
  let source = ''
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!
    if (char === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/'
      source += slash ? '(?:.*/)?' : '.*'
      i += slash ? 2 : 1
    } else if (char === '*') source += '[^/]*'
    else if (char === '?') source += '[^/]'
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  if (source.endsWith('/.*')) source = `${source.slice(0, -3)}(?:/.*)?`
  const regExp = new RegExp(`^${source}$`)
  globCache.set(glob, regExp)
  return regExp
}

/**
 * Whether a rule `{tool, pattern}` covers a call, as the policy matches allow rules (`--allow`):
 * for bash every simple command of a plain line must match (an opaque line only `*` or its own
 * `exact:` line; nothing before loadBashGrammar() has run).
 */
export function ruleCovers(
  rule: { tool: string; pattern: string },
  toolName: string,
  input: unknown,
  cwd: string,
): boolean {
  if (!appliesTo(rule, toolName)) return false
  const subject = permissionSubject(toolName, input)
  if (toolName !== 'bash') return matchesSubject(toolName, subject, rule.pattern, cwd)
  return allowPatternCovers(rule.pattern, subject, analyzeBashCommand(subject))
}

/** Flattens a config's `permission` object into rules of one source, in the order written. */
export function rulesOf(config: PermissionConfig | undefined, source: string): PermissionRule[] {
  const rules: PermissionRule[] = []
  for (const [tool, setting] of Object.entries(config ?? {})) {
    if (typeof setting === 'string') rules.push({ tool, pattern: '*', action: setting, source })
    else
      for (const [pattern, action] of Object.entries(setting)) rules.push({ tool, pattern, action, source })
  }
  return rules
}
