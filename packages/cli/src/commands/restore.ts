// `tangent restore ID --to SEQ`: rewind the files this session changed after SEQ;
// `tangent restore ID --undo [SEQ]`: undo that restore. Both are events in the session's log.
import type { Command } from 'commander'
import { UsageError } from '../cli-error.js'
import type { CliContext } from '../context.js'
import { withSession } from '../open-backend.js'
import { parseSeq } from '../options.js'
import { printJson, printLines } from '../output.js'
import { safeLine } from '../render/style.js'

interface RestoreFlags {
  to?: number
  undo?: number | true
  force?: boolean
  json?: boolean
}

export function registerRestoreCommand(program: Command, context: CliContext): void {
  program
    .command('restore')
    .description(
      'Rewind the files this session changed after --to SEQ (or --undo a restore); refuses if someone else changed them',
    )
    .argument('<id>', 'session id or a unique prefix of one')
    .option('--to <seq>', 'the seq to rewind the files to', parseSeq)
    .option(
      '--undo [seq]',
      'undo the restore recorded at SEQ (default: the latest not undone that changed something)',
      parseSeq,
    )
    .option('--force', 'overwrite paths that another writer changed since')
    .option('--json', 'print {restored, kept, undoTree, seq}')
    .action(async (given: string, flags: RestoreFlags) => {
      if ((flags.to === undefined) === (flags.undo === undefined)) {
        throw new UsageError('restore needs exactly one of --to SEQ or --undo [SEQ]')
      }
      const force = flags.force === true
      const undo = flags.undo
      const { sessionId: id, result } = await withSession(context, {}, given, (backend, id) =>
        undo !== undefined
          ? backend.undoRestore(id, undo === true ? undefined : undo, force)
          : backend.restore(id, flags.to ?? 0, force),
      )
      if (flags.json) return printJson(context, result)
      const what = undo !== undefined ? 'Undid the restore: put back' : `Restored`
      const where = undo !== undefined ? '' : ` to seq ${flags.to}`
      printLines(context, [
        result.restored.length === 0
          ? undo !== undefined
            ? 'Nothing to undo: no file to write back.'
            : `Nothing to restore: the files this session changed after seq ${flags.to} are already as they were there.`
          : `${what} ${result.restored.length} path(s)${where}: ${safeLine(result.restored.join(', '))}`,
        ...(result.kept && result.kept.length > 0
          ? [`Left alone (a directory stands there now): ${safeLine(result.kept.join(', '))}`]
          : []),
        result.seq === undefined
          ? 'Nothing was recorded.'
          : undo === undefined
            ? `Recorded at seq ${result.seq}; undo with \`tangent restore ${id} --undo ${result.seq}\``
            : `Recorded at seq ${result.seq}`,
      ])
    })
}
