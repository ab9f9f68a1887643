// `tangent keep B`: keep a branch — its file changes since the fork point merged into its
// parent's directory, the keep recorded in the parent's log, its sibling branches archived and
// their clean worktrees removed. A conflicting change is `files-conflict` (exit 1), nothing written.
import type { Command } from 'commander'
import type { KeepResult } from '../backend.js'
import type { CliContext } from '../context.js'
import { withSession } from '../open-backend.js'
import { printJson, printLines } from '../output.js'
import { type Style, safeLine, styleFor } from '../render/style.js'

export function registerKeepCommand(program: Command, context: CliContext): void {
  program
    .command('keep')
    .description(
      "Keep a branch: bring its file changes into its parent's directory, archive the other branches of its exploration",
    )
    .argument('<id>', 'the branch: a session id or a unique prefix of one')
    .option('--no-archive', 'leave the other branches and their worktrees as they are')
    .option('--json', 'print {kept, parent, seq, files, archived, worktrees}')
    .action(async (given: string, flags: { archive: boolean; json?: boolean }) => {
      const { result } = await withSession(context, {}, given, (backend, sessionId) =>
        backend.keep(sessionId, flags.archive),
      )
      if (flags.json) return printJson(context, result)
      printLines(context, keepLines(result, styleFor(context.stdout, context.env)))
    })
}

export function keepLines(result: KeepResult, style: Style): string[] {
  const lines = [`kept ${result.kept} into ${result.parent} (branch/kept at seq ${result.seq})`]
  const { files } = result
  if (files.mode === 'shared')
    lines.push("files: the branch worked in its parent's directory; nothing to apply")
  else if (files.applied.length === 0) lines.push('files: no changes to apply')
  else {
    lines.push(`files applied to the parent's directory (${files.applied.length}):`)
    lines.push(...files.applied.map((path) => `  ${style.green(safeLine(path))}`))
    if (files.restoreSeq !== undefined)
      lines.push(style.dim(`  undo with: tangent restore ${result.parent} --undo ${files.restoreSeq}`))
  }
  lines.push(result.archived.length === 0 ? 'archived: none' : `archived: ${result.archived.join(', ')}`)
  for (const worktree of result.worktrees) {
    lines.push(
      worktree.removed
        ? `worktree removed: ${safeLine(worktree.path)} (${worktree.sessionId})`
        : `worktree kept: ${safeLine(worktree.path)} (${worktree.sessionId}): ${safeLine(worktree.reason ?? 'not removed')}`,
    )
  }
  return lines
}
