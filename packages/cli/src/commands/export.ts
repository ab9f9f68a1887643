// `tangent export ID [--format jsonl|html|md|claude|codex|pi] [--tree] [-o FILE]`: a session out of
// Tangent (docs/architecture.md, "Moving in and out") — a bundle (`jsonl`, the default: its events
// and its ancestors', which `tangent import` reads into any data directory), its transcript as
// Markdown (`md`) or one offline HTML file (`html`, `--tree`: every session of its tree), or a
// session file another agent resumes (`claude`, `codex`, `pi`), written where that agent looks.
import fs from 'node:fs/promises'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { type ExportFormat, exportFormats } from '@tangent/protocol'
import { toolHomeDir, writeFileAtomic } from '@tangent/runtime'
import { isToolExportFormat, type ToolSessionFile } from '@tangent/runtime/transfer'
import type { Command } from 'commander'
import type { ExportPage } from '../backend.js'
import { UsageError } from '../cli-error.js'
import type { CliContext } from '../context.js'
import { withSession } from '../open-backend.js'

interface ExportFlags {
  format?: string
  tree?: boolean
  output?: string
  force?: boolean
}

export function registerExportCommand(program: Command, context: CliContext): void {
  program
    .command('export')
    .description(
      'Write a session out: a bundle with its ancestors (jsonl, for `tangent import`), Markdown, one offline HTML file, or a session file Claude Code, Codex or pi resumes',
    )
    .argument('<id>', 'session id or a unique prefix of one')
    .option(
      '--format <format>',
      'jsonl (a bundle, default), md, html, or claude / codex / pi (written where that agent looks)',
      'jsonl',
    )
    .option('--tree', 'html: every session of the tree, with navigation between branches')
    .option('-o, --output <file>', 'write to this file (atomically) instead of stdout')
    .option(
      '--force',
      'claude / codex / pi: replace the file even when the agent continued the session in it',
    )
    .action(async (id: string, flags: ExportFlags) => exportSession(context, id, flags))
}

async function exportSession(context: CliContext, id: string, flags: ExportFlags): Promise<void> {
  const format = formatOf(flags.format ?? 'jsonl')
  if (flags.tree && format !== 'html') throw new UsageError('--tree goes with --format html.')
  await withSession(context, { readOnly: true }, id, async (backend, sessionId) => {
    const pages = backend.exportSession(sessionId, format, flags.tree ? { tree: true } : {})
    if (flags.output === undefined && !isToolExportFormat(format)) {
      for await (const page of pages) context.stdout.write(page.content)
      return
    }
    const texts: string[] = []
    let file: ExportPage['file']
    for await (const page of pages) {
      texts.push(page.content)
      file ??= page.file
    }
    const target =
      flags.output !== undefined ? path.resolve(context.cwd, flags.output) : toolFilePath(context, file)
    if (flags.output === undefined) await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 })
    const text = texts.join('')
    if (file && !flags.force) await refuseToDropTurns(target, text, file)
    await writeFileAtomic(target, text, 0o600)
    if (file) context.stdout.write(`${target}\n${resumeHint(file, target)}\n`)
  })
}

/**
 * An agent's session file written before may have been continued in that agent since (it appends
 * its turns to the file): replacing it would delete them. The file is replaced only when each of
 * its lines is one this export writes too — an earlier export of this session, or nothing.
 */
async function refuseToDropTurns(target: string, text: string, file: ToolSessionFile): Promise<void> {
  let existing: string
  try {
    existing = await fs.readFile(target, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  const writing = new Set(text.split('\n'))
  const theirs = existing.split('\n').filter((line) => line !== '' && !writing.has(line)).length
  if (theirs === 0) return
  throw new TangentError(
    'export-conflict',
    `${target} holds ${theirs} line${theirs === 1 ? '' : 's'} this export does not: the session was continued in ${file.tool} since it was written. Bring those turns in first (tangent import ${target}), write elsewhere (-o FILE), or replace it (--force).`,
    { file: target },
  )
}

/** Where the agent a `claude` / `codex` / `pi` export is for looks for it. */
function toolFilePath(context: CliContext, file: ToolSessionFile | undefined): string {
  if (!file) throw new Error('The export named no file for its agent.')
  const home = toolHomeDir(file.tool, context.env)
  if (home === null)
    throw new UsageError(`HOME is not set: say where to write the ${file.tool} session with -o FILE.`)
  return path.join(home, file.path)
}

function resumeHint(file: ToolSessionFile, target: string): string {
  switch (file.tool) {
    case 'claude':
      return `Resume it with: claude --resume ${file.sessionId}`
    case 'codex':
      return `Resume it with: codex resume ${file.sessionId}`
    case 'pi':
      return `Resume it with: pi --session ${target}`
  }
}

function formatOf(value: string): ExportFormat {
  if ((exportFormats as readonly string[]).includes(value)) return value as ExportFormat
  throw new UsageError(`Unknown --format ${value}: use ${exportFormats.join(', ')}.`)
}
