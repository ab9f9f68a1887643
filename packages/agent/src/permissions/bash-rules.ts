// How a bash rule's pattern meets a command line (docs/architecture.md §12.1), one code path for
// config rules, `--allow` flags and the session's `always` answers:
// - `*` (or an empty pattern) is every line.
// - `exact:LINE` is that line, character for character, and nothing else.
// - Otherwise the pattern is a command prefix, word by word (`git push`, `git push *` and
//   `git push:*` alike). An allow rule covers a plain line whose every simple command starts
//   with those words, as written after quote removal (`./git` is not `git`); it never covers an
//   opaque line. A deny or ask rule matches any command the line may run, however it is spelled
//   (`\rm`, `/bin/rm`, `FOO=1 command rm`, `bash -c 'rm x'`), and "may" match one it cannot name.
import type { BashCommandLine } from './bash-command.js'
import { type Invocation, invocationsOf, programName } from './bash-invocation.js'

/** The marker of a pattern that is one whole line: what `always` keeps for a line it cannot generalise. */
export const exactLinePrefix = 'exact:'

export type PatternMatch = 'yes' | 'maybe' | 'no'

/** The pattern of exactly this line. */
export function exactLinePattern(line: string): string {
  return `${exactLinePrefix}${line}`
}

/** The words of a prefix pattern; empty for `*` (everything); null for an exact-line pattern. */
function prefixWords(pattern: string): string[] | null {
  if (pattern.startsWith(exactLinePrefix)) return null
  const prefix = pattern.replace(/(?:\s\*|:\*)$/, '').trim()
  return prefix === '*' || prefix === '' ? [] : prefix.split(/\s+/)
}

function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= words.length && prefix.every((word, index) => words[index] === word)
}

/** Whether an allow pattern covers the whole line (every simple command of a plain line). */
export function allowPatternCovers(pattern: string, line: string, analysis: BashCommandLine): boolean {
  if (!analysis.parsed) return false
  const prefix = prefixWords(pattern)
  if (prefix === null) return pattern.slice(exactLinePrefix.length) === line
  if (prefix.length === 0) return true
  return analysis.opaque === null && analysis.commands.every((command) => startsWith(command, prefix))
}

/** Whether an allow pattern covers one simple command of a plain line. */
export function allowPatternCoversCommand(
  pattern: string,
  command: readonly string[],
  line: string,
): boolean {
  const prefix = prefixWords(pattern)
  if (prefix === null) return pattern.slice(exactLinePrefix.length) === line
  return startsWith(command, prefix)
}

/** Whether a deny or ask pattern matches a command the line may run: `maybe` when it cannot be told. */
export function restrictivePatternMatches(
  pattern: string,
  line: string,
  analysis: BashCommandLine,
): PatternMatch {
  const prefix = prefixWords(pattern)
  if (prefix === null) return pattern.slice(exactLinePrefix.length) === line ? 'yes' : 'no'
  if (prefix.length === 0) return 'yes'
  return matchAny(analysis.invocations, prefix)
}

/** The same for one simple command of a plain line. */
export function restrictivePatternMatchesCommand(
  pattern: string,
  command: readonly string[],
  line: string,
): PatternMatch {
  const prefix = prefixWords(pattern)
  if (prefix === null) return pattern.slice(exactLinePrefix.length) === line ? 'yes' : 'no'
  if (prefix.length === 0) return 'yes'
  return matchAny(
    invocationsOf(command, () => [[null]]),
    prefix,
  )
}

function matchAny(invocations: readonly Invocation[], prefix: readonly string[]): PatternMatch {
  const wanted = [programName(prefix[0]!), ...prefix.slice(1)]
  let result: PatternMatch = 'no'
  for (const invocation of invocations) {
    const match = matchInvocation(invocation, wanted)
    if (match === 'yes') return 'yes'
    if (match === 'maybe') result = 'maybe'
  }
  return result
}

function matchInvocation(invocation: Invocation, wanted: readonly string[]): PatternMatch {
  for (let index = 0; index < wanted.length; index++) {
    if (index >= invocation.length) return 'no'
    const word = invocation[index]
    // An unknown word may be several (`$ARGS`, a glob): from here on anything may follow.
    if (word === null) return 'maybe'
    if (word !== wanted[index]) return 'no'
  }
  return 'yes'
}

/**
 * The pattern an `always` answer stores: never wider than what the person saw. A program and its
 * subcommand (`npm test`, `git status`) or the program alone (`ls`), unless the command is
 * destructive (then that whole line); an opaque line, or one whose commands need different
 * patterns, is that whole line.
 */
export function proposeBashPattern(line: string, analysis: BashCommandLine): string {
  if (!analysis.parsed || analysis.opaque !== null) return exactLinePattern(line)
  const proposals = new Set(analysis.commands.map(proposeForCommand))
  const [only] = proposals
  return proposals.size === 1 && only ? only : exactLinePattern(line)
}

/** Programs whose second word names what they do (`git push`, `npm test`): a rule keeps both words. */
const programsWithSubcommands = new Set([
  ...['apt', 'apt-get', 'brew', 'bun', 'cargo', 'deno', 'docker', 'dotnet', 'gh', 'git', 'go', 'gradle'],
  ...['helm', 'kubectl', 'make', 'mvn', 'npm', 'npx', 'pip', 'pip3', 'pnpm', 'podman', 'poetry'],
  ...['systemctl', 'terraform', 'uv', 'yarn'],
])

/** Subcommands that run a named thing (`npm run build`): the rule keeps the name too. */
const runnerSubcommands: Record<string, readonly string[]> = {
  bun: ['run', 'x'],
  deno: ['run', 'task'],
  go: ['run'],
  npm: ['run', 'run-script', 'exec'],
  pnpm: ['run', 'exec', 'dlx'],
  poetry: ['run'],
  uv: ['run', 'tool'],
  yarn: ['run', 'exec', 'dlx'],
}

function proposeForCommand(words: readonly string[]): string | null {
  if (words.some((word) => word === '' || /\s/.test(word)) || isDestructive(words)) return null
  const [program, sub, third] = words
  if (!program || !programsWithSubcommands.has(program)) return program ?? null
  if (!sub || !/^[a-z][a-z0-9:_-]*$/i.test(sub)) return null
  if (!runnerSubcommands[program]?.includes(sub)) return `${program} ${sub}`
  return third && /^[a-z0-9@][\w@/:.-]*$/i.test(third) ? `${program} ${sub} ${third}` : null
}

/** Programs that delete, overwrite, move or change files, end processes, reach the network or run any code they are given. */
const destructivePrograms = new Set([
  ...['at', 'chattr', 'chgrp', 'chmod', 'chown', 'cp', 'crontab', 'curl', 'dd', 'fdisk', 'halt', 'install'],
  ...['iptables', 'kill', 'killall', 'ln', 'losetup', 'mkswap', 'mount', 'mv', 'nft', 'parted', 'passwd'],
  ...['patch', 'pkill', 'poweroff', 'reboot', 'rm', 'rmdir', 'rsync', 'scp', 'setfacl', 'sftp', 'shred'],
  ...['shutdown', 'tar', 'tee', 'truncate', 'umount', 'unlink', 'unzip', 'useradd', 'userdel', 'usermod'],
  ...['wget', 'wipefs'],
  // Interpreters: `always` for one script is not `always` for every script.
  ...['ash', 'awk', 'bash', 'dash', 'expect', 'fish', 'gawk', 'ksh', 'lua', 'mawk', 'mksh', 'nawk', 'node'],
  ...['nodejs', 'osascript', 'perl', 'php', 'powershell', 'pwsh', 'python', 'python2', 'python3', 'Rscript'],
  ...['ruby', 'sh', 'tclsh', 'yash', 'zsh'],
])

/** Subcommands of these programs that destroy or rewrite something, or run what they are given. */
const destructiveSubcommands: Record<string, readonly string[]> = {
  cargo: ['install', 'yank'],
  docker: ['exec', 'run', 'system', 'volume'],
  gh: ['api'],
  git: [
    ...['am', 'apply', 'branch', 'checkout', 'clean', 'config', 'filter-branch', 'filter-repo', 'gc', 'mv'],
    ...['notes', 'prune', 'push', 'rebase', 'reflog', 'remote', 'replace', 'reset', 'restore', 'rm', 'stash'],
    ...['submodule', 'switch', 'symbolic-ref', 'tag', 'update-ref', 'worktree'],
  ],
  kubectl: ['apply', 'drain', 'edit', 'exec', 'patch', 'replace', 'scale'],
  podman: ['exec', 'run', 'system', 'volume'],
  systemctl: ['disable', 'halt', 'isolate', 'mask', 'poweroff', 'reboot', 'restart'],
  terraform: ['apply', 'import', 'state', 'taint'],
}

/** Verbs that destroy, in any program's first words (`gh repo delete`, `docker volume rm`). */
const destructiveVerbs = new Set([
  ...['autoremove', 'clean', 'clear', 'del', 'delete', 'deprecate', 'destroy', 'down', 'drop', 'erase'],
  ...['kill', 'prune', 'publish', 'purge', 'remove', 'reset', 'rm', 'stop', 'uninstall', 'unpublish'],
  ...['wipe', 'yank'],
])

/** Whether a command is destructive: then `always` keeps exactly it. */
export function isDestructive(words: readonly string[]): boolean {
  const name = programName(words[0] ?? '')
  const args = words.slice(1)
  if (destructivePrograms.has(name) || name.startsWith('mkfs') || /^python[\d.]+$/.test(name)) return true
  if (name === 'sed' && args.some((arg) => /^-[a-zA-Z]*i/.test(arg) || arg.startsWith('--in-place')))
    return true
  if (name === 'find')
    return args.some((arg) => /^-(?:delete|exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)$/.test(arg))
  if (!programsWithSubcommands.has(name)) return false
  if (destructiveSubcommands[name]?.includes(args[0] ?? '')) return true
  if (args.slice(0, 3).some((arg) => destructiveVerbs.has(arg))) return true
  return args.some((arg) =>
    /^(?:-[a-zA-Z]*[fD][a-zA-Z]*|--force.*|--hard|--delete|--prune|--mirror)$/.test(arg),
  )
}
