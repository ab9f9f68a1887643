// `tangent snapshots ID`: the session's own file snapshots (seq, tree, changed paths).
import type { Command } from 'commander'
import type { CliContext } from '../context.js'
import { withSession } from '../open-backend.js'
import { printJson, printLines, printNote } from '../output.js'
import { clip, safeLine, styleFor } from '../render/style.js'

export function registerSnapshotsCommand(program: Command, context: CliContext): void {
  program
    .command('snapshots')
    .description("List a session's file snapshots (restore one with `tangent restore ID --to SEQ`)")
    .argument('<id>', 'session id or a unique prefix of one')
    .option('--json', 'print [{seq, tree, changed}]')
    .action(async (given: string, flags: { json?: boolean }) => {
      const { sessionId: id, result: snapshots } = await withSession(
        context,
        { readOnly: true },
        given,
        (backend, sessionId) => backend.snapshots(sessionId),
      )
      if (flags.json) return printJson(context, snapshots)
      if (snapshots.length === 0) {
        printNote(
          context,
          `No snapshots in ${id} yet: they are taken when a turn starts and after each step that runs a tool.`,
        )
        return
      }
      const style = styleFor(context.stdout, context.env)
      const width = String(snapshots[snapshots.length - 1]?.seq ?? 0).length
      printLines(
        context,
        snapshots.map(
          (snapshot) =>
            `${String(snapshot.seq).padStart(width)}  ${style.dim(safeLine(snapshot.tree.slice(0, 12)))}  ${
              snapshot.changed.length > 0
                ? clip(snapshot.changed.join(', '), 90)
                : snapshot.outside?.length
                  ? style.dim(`(changed outside Tangent: ${clip(snapshot.outside.join(', '), 70)})`)
                  : style.dim('(no changes)')
            }`,
        ),
      )
    })
}
