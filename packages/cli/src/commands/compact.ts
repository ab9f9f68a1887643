// `tangent compact ID`: summarise a session's history now, so later turns send the model the
// summary plus what follows it (docs/architecture.md §12.4). Nothing is removed from the log.
import type { Command } from 'commander'
import type { CompactResult } from '../backend.js'
import type { CliContext } from '../context.js'
import { withSession } from '../open-backend.js'
import { printJson } from '../output.js'
import { safeLine } from '../render/style.js'

/** What a compaction did, in one line (also `/compact` in `tangent chat`). */
export function describeCompaction(sessionId: string, result: CompactResult): string {
  const tokens =
    result.tokensBefore !== undefined && result.tokensAfter !== undefined
      ? ` (~${result.tokensBefore} → ~${result.tokensAfter} tokens)`
      : ''
  return `Compacted ${safeLine(sessionId)}: events 0–${result.throughSeq} summarised by ${safeLine(result.model)} at seq ${result.seq}${tokens}. Forks before seq ${result.seq} keep the full history.`
}

export function registerCompactCommand(program: Command, context: CliContext): void {
  program
    .command('compact')
    .description("Summarise a session's history with its model; later turns send the summary instead")
    .argument('<id>', 'session id or a unique prefix of one')
    .option('--json', 'print {seq, throughSeq, summary, model, tokensBefore?, tokensAfter?}')
    .action(async (id: string, flags: { json?: boolean }) => {
      const { sessionId, result } = await withSession(context, {}, id, (backend, sessionId) =>
        backend.compact(sessionId),
      )
      if (flags.json) return printJson(context, result)
      context.stdout.write(`${describeCompaction(sessionId, result)}\n`)
    })
}
