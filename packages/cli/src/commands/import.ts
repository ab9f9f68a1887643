// `tangent import FILE... [--json]` and `tangent import --from claude|codex|pi [--all]`: sessions
// into this data directory (docs/architecture.md, "Moving in and out"). Each file's format is
// detected from its first line (imports/detect.ts), in the runtime: a Tangent bundle is imported
// whole or not at all, ids and lineage kept; another tool's session becomes sessions, a fork at
// each branch it keeps inside the file. Importing the same file again creates nothing.
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { detectImportSource, importOrder, sessionFileFirstLine } from '@tangent/runtime/transfer'
import { type Command, Option } from 'commander'
import type { Backend, ImportResult } from '../backend.js'
import { UsageError } from '../cli-error.js'
import type { CliContext } from '../context.js'
import { withBackend } from '../open-backend.js'
import { printJson } from '../output.js'

type FromTool = 'claude' | 'codex' | 'pi'

interface ImportFlags {
  json?: boolean
  from?: FromTool
  all?: boolean
  cwd?: string
}

export function registerImportCommand(program: Command, context: CliContext): void {
  program
    .command('import')
    .description(
      'Import sessions: Tangent bundles (from `tangent export`), Claude Code, Codex and pi session files; branches become forks',
    )
    .argument('[files...]', 'files to import (the format is detected)')
    .addOption(
      new Option('--from <tool>', "this folder's sessions from that tool's default location").choices([
        'claude',
        'codex',
        'pi',
      ]),
    )
    .option('--all', 'with --from: every folder, not only this one')
    .option(
      '--cwd <dir>',
      "FILE: the folder another tool's session works in here (default: the one it recorded); --from: the folder whose sessions (default: this one)",
    )
    .option('--json', 'print {"sessions":[{"id","source","parentSession"?,"status","title"?,"events"}]}')
    .action(async (files: string[], flags: ImportFlags) => importFiles(context, files, flags))
}

async function importFiles(context: CliContext, given: string[], flags: ImportFlags): Promise<void> {
  if (flags.all && !flags.from) throw new UsageError('--all goes with --from claude|codex|pi')
  if (flags.from && given.length > 0) throw new UsageError('import takes FILE... or --from TOOL, not both')
  if (flags.all && flags.cwd !== undefined)
    throw new UsageError('--from TOOL --all takes every folder: --cwd DIR names one folder instead')
  if (!flags.from && given.length === 0)
    throw new UsageError('import needs FILE... or --from claude|codex|pi (e.g. tangent import --from claude)')
  const sessions: ImportResult['sessions'] = []
  const problems: string[] = []
  if (flags.from) {
    // Found and read where the data directory is served (the Host's home, or this process's).
    const tool = flags.from
    // With --cwd: that folder's sessions instead of this one's.
    const folder = path.resolve(context.cwd, flags.cwd ?? '.')
    const result = await withBackend(context, {}, (backend) =>
      backend.importFrom(flags.all ? { tool, all: true } : { tool, cwd: folder }),
    )
    sessions.push(...result.sessions)
    for (const problem of result.problems)
      problems.push(
        `${shown(context, problem.file)}${problem.line !== undefined ? `:${problem.line}` : ''}: ${problem.message}`,
      )
    if (result.files === 0 && !flags.json)
      context.stdout.write(`No ${toolNames[tool]} sessions ${flags.all ? 'found' : 'of this folder'}.\n`)
  } else {
    const cwd = flags.cwd === undefined ? undefined : path.resolve(context.cwd, flags.cwd)
    const paths = given.map((file) => path.resolve(context.cwd, file))
    // Every file is recognised (its first line) and found readable before anything is written; each
    // is read where the data directory is served, a chunk at a time, when its turn comes (issue 31).
    const firstLines: string[] = []
    for (const file of paths) {
      const firstLine = sessionFileFirstLine(file)
      firstLines.push(firstLine)
      if (detectImportSource(firstLine, file) === null)
        throw new TangentError(
          'import-unsupported',
          `${shown(context, file)}: not a file Tangent knows how to import (its first line is neither a Tangent bundle's nor a Claude Code, Codex or pi session's). Nothing was imported.`,
          { file },
        )
    }
    // A Codex rollout forked from another one given with it goes after it, so it can fork its import.
    const ordered = importOrder(firstLines).map((index) => paths[index]!)
    await withBackend(context, {}, async (backend) => {
      for (const file of ordered) {
        const name = shown(context, file)
        try {
          const result = await importOne(backend, file, cwd)
          sessions.push(...result.sessions)
          for (const problem of result.problems ?? [])
            problems.push(
              `${name}${problem.line !== undefined ? `:${problem.line}` : ''}: ${problem.message}`,
            )
        } catch (error) {
          if (TangentError.isInstance(error)) error.message = `${name}: ${error.message}`
          throw error
        }
      }
    })
  }
  // Lines a reader could not read are said, never dropped silently (the rest was imported).
  for (const problem of problems) context.stderr.write(`warning: ${problem}\n`)
  if (flags.json) return printJson(context, { sessions })
  if (sessions.length === 0 && !flags.from) context.stdout.write('No sessions to import.\n')
  for (const session of sessions) {
    const what =
      session.status === 'created' ? 'Imported' : session.status === 'appended' ? 'Updated ' : 'Already here'
    const lineage = session.parentSession ? ` (fork of ${session.parentSession})` : ''
    context.stdout.write(`${what} ${session.id}${lineage}${session.title ? ` ${session.title}` : ''}\n`)
  }
}

const toolNames: Record<FromTool, string> = { claude: 'Claude Code', codex: 'Codex', pi: 'pi' }

/** Imports one file, which the runtime reads where it runs (the Host's machine is this one). */
function importOne(backend: Backend, file: string, cwd: string | undefined): Promise<ImportResult> {
  return backend.importFile({ path: file, fileName: path.basename(file), ...(cwd ? { cwd } : {}) })
}

function shown(context: CliContext, file: string): string {
  return path.relative(context.cwd, file) || file
}
