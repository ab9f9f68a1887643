// `tangent migrate --to DIR|URL [--from DIR|URL] [ID...]`: copy sessions between stores — a data
// directory (JSONL) and a PostgreSQL database — with lineage and fork points intact
// (docs/architecture.md §4). The source is only read; files (snapshots, worktrees) stay here.
import os from 'node:os'
import path from 'node:path'
import { isPostgresUrl, redactUrl } from '@tangent/core'
import { migrateSessions } from '@tangent/runtime/transfer'
import type { Command } from 'commander'
import type { CliContext } from '../context.js'
import { printJson } from '../output.js'
import { safeLine, safeText } from '../render/style.js'

interface MigrateFlags {
  to: string
  from?: string
  json?: boolean
}

export function registerMigrateCommand(program: Command, context: CliContext): void {
  program
    .command('migrate')
    .description('Copy sessions between stores: a data directory (JSONL) and PostgreSQL, with lineage intact')
    .requiredOption('--to <store>', 'target: a postgres:// URL or a data directory')
    .option(
      '--from <store>',
      'source: a postgres:// URL or a data directory (default TANGENT_STORE, else TANGENT_HOME)',
    )
    .option('--json', 'print {copied, forks, skipped, trees?: {uploaded, missing}}')
    .argument('[ids...]', 'only these sessions, by id or unique prefix (with their ancestors); default all')
    .action(async (ids: string[], flags: MigrateFlags) => migrate(context, ids, flags))
}

async function migrate(context: CliContext, ids: string[], flags: MigrateFlags): Promise<void> {
  const location = (value: string) => (isPostgresUrl(value) ? value : path.resolve(context.cwd, value))
  const from = location(flags.from ?? (context.env.TANGENT_STORE?.trim() || context.home))
  const to = location(flags.to)
  const result = await migrateSessions({
    from,
    to,
    ...(ids.length > 0 ? { ids } : {}),
    machine: context.env.TANGENT_MACHINE?.trim() || os.hostname(),
    onWarning: (message) => context.stderr.write(`tangent: warning: ${safeText(message)}\n`),
  })
  if (flags.json) return printJson(context, result)
  const name = (value: string) => safeLine(isPostgresUrl(value) ? redactUrl(value) : value)
  context.stdout.write(
    `Copied ${result.copied.length} session(s) from ${name(from)} to ${name(to)} (${result.forks.length} fork(s) by reference to their parent)\n`,
  )
  if (result.trees) {
    const missing = result.trees.missing.length
    context.stdout.write(
      `  ${result.trees.uploaded} snapshot tree(s) stored in the database, so other machines can fork these sessions with their files${missing > 0 ? `; ${missing} no longer in ${name(from)}'s snapshot store (forks at those points start without files)` : ''}\n`,
    )
  }
  for (const skipped of result.skipped)
    context.stdout.write(`  skipped ${safeLine(skipped.id)}: ${safeLine(skipped.reason)}\n`)
}
