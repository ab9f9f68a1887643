// `tangent restore ID --to SEQ`: rewind the files this session changed after SEQ.
import type { Command } from 'commander'
import type { CliContext } from '../context.js'
import { withBackend } from '../open-backend.js'
import { parseSeq } from '../options.js'
import { printJson, printLines } from '../output.js'

export function registerRestoreCommand(program: Command, context: CliContext): void {
  program
    .command('restore')
    .description('Rewind the files this session changed after --to SEQ; refuses if someone else changed them')
    .argument('<id>', 'session id')
    .requiredOption('--to <seq>', 'the seq to rewind the files to', parseSeq)
    .option('--force', 'overwrite paths that another writer changed since')
    .option('--json', 'print {restored, undoTree}')
    .action(async (id: string, flags: { to: number; force?: boolean; json?: boolean }) => {
      const result = await withBackend(context, {}, (backend) =>
        backend.restore(id, flags.to, flags.force === true),
      )
      if (flags.json) return printJson(context, result)
      printLines(context, [
        result.restored.length === 0
          ? `Nothing to restore: ${id} changed no files after seq ${flags.to}.`
          : `Restored ${result.restored.length} path(s) to seq ${flags.to}: ${result.restored.join(', ')}`,
        `Undo snapshot: ${result.undoTree}`,
      ])
    })
}
