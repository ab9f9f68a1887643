// One file into this data directory, whatever made it (docs/architecture.md, "Moving in and out"):
// its first line says which (detect.ts); a Tangent bundle goes in whole (bundle.ts), another
// tool's session is read into a tree by that tool's reader and the tree becomes sessions
// (import-tree.ts). What `session.import` and `tangent import` run, once.
import fs from 'node:fs'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import type { SessionImportParams, SessionImportResult } from '@tangent/protocol'
import { detectImportSource } from './detect.js'
import {
  fileLines,
  firstLineOf,
  type ImportLine,
  type ImportText,
  openSessionFile,
  wholeFile,
} from './import-lines.js'
import type { ImportTreeOptions, ImportTreeResult } from './import-tree.js'
import type { ImportedTree, ImportSource } from './imported-tree.js'

// The readers load when a file of theirs is imported, not when Tangent starts (§9, start-up).

export interface ImportFileDeps {
  importBundle(params: { content: string }): Promise<SessionImportResult>
  importTree(tree: ImportedTree, options: ImportTreeOptions): Promise<ImportTreeResult>
  summary(sessionId: string): Promise<{ title: string; eventCount: number }>
}

/** What one import reads: the text, or a file on this machine (`path`, absolute), and its subagent files. */
export type ImportFileParams = Omit<SessionImportParams, 'content' | 'uploadId'> &
  ({ content: string; path?: undefined } | { path: string; content?: undefined }) & {
    /** A Claude Code session's subagent files on this machine (import-from.ts). */
    subagentFiles?: readonly string[]
  }

export async function importFile(
  deps: ImportFileDeps,
  params: ImportFileParams,
): Promise<SessionImportResult> {
  if (params.path === undefined) {
    const newline = params.content.indexOf('\n')
    const firstLine = newline >= 0 ? params.content.slice(0, newline) : params.content
    const source = detect(firstLine, params.fileName ?? '')
    if (source === 'tangent') return deps.importBundle({ content: params.content })
    // Returned, not awaited: this frame ends here, and with it the last hold on the file's text
    // (a suspended frame keeps its parameters), which the sessions no longer need (issue 31).
    return importTree(deps, source, await readTree(source, params.content, params), params.cwd)
  }
  const file = params.path
  if (!path.isAbsolute(file))
    throw new TangentError('invalid-params', `path must be absolute (a file on this machine): ${file}`, {
      path: file,
    })
  const fd = openSessionFile(file)
  let tree: ImportedTree
  let source: Exclude<ImportSource, 'tangent'>
  try {
    const detected = detect(firstLineOf(fd), params.fileName ?? path.basename(file))
    if (detected === 'tangent') return await deps.importBundle({ content: wholeFile(fd) })
    source = detected
    tree = await readTree(source, fileLines(fd, maxLineBytes), params)
  } finally {
    fs.closeSync(fd)
  }
  return importTree(deps, source, tree, params.cwd)
}

/** A line of a session file longer than this (64 MiB) is a problem, not read. */
const maxLineBytes = 64 * 1024 * 1024

function detect(firstLine: string, fileName: string): ImportSource {
  const source = detectImportSource(firstLine, fileName)
  if (source === null)
    throw new TangentError(
      'import-unsupported',
      `${fileName || 'The content'} is not a file Tangent knows how to import: its first line is neither a Tangent bundle's nor a Claude Code, Codex or pi session's.`,
      { fileName },
    )
  return source
}

async function readTree(
  source: Exclude<ImportSource, 'tangent'>,
  text: ImportText,
  params: ImportFileParams,
): Promise<ImportedTree> {
  if (source === 'codex') return (await import('./codex.js')).readCodexRollout(text)
  if (source === 'pi') return (await import('./pi.js')).readPiSession(text)
  const subagents = [
    ...(params.subagents ?? []).map((s) => ({ fileName: s.fileName, text: s.content as ImportText })),
    ...(params.subagentFiles ?? []).map((file) => ({
      fileName: path.basename(file),
      text: linesOfFile(file),
    })),
  ]
  return (await import('./claude.js')).readClaudeSession(text, {
    ...(params.fileName ? { fileName: params.fileName } : {}),
    ...(subagents.length > 0 ? { subagents } : {}),
  })
}

/** A file's lines, opened when they are first read and closed when the reading ends. */
function* linesOfFile(file: string): Generator<ImportLine> {
  const fd = openSessionFile(file)
  try {
    yield* fileLines(fd, maxLineBytes)
  } finally {
    fs.closeSync(fd)
  }
}

async function importTree(
  deps: ImportFileDeps,
  source: Exclude<ImportSource, 'tangent'>,
  tree: ImportedTree,
  cwd: string | undefined,
): Promise<SessionImportResult> {
  const result = await deps.importTree(tree, cwd ? { cwd } : {})
  const sessions: SessionImportResult['sessions'] = []
  for (const session of result.sessions) {
    const { title, eventCount } = await deps.summary(session.id)
    sessions.push({
      id: session.id,
      source,
      ...(session.parentSession ? { parentSession: session.parentSession } : {}),
      status: session.created ? 'created' : 'existing',
      ...(title ? { title } : {}),
      events: eventCount,
    })
  }
  return { sessions, ...(result.problems.length > 0 ? { problems: result.problems } : {}) }
}

/** A tool's session files of `folder` (all folders when null), where that tool keeps them. */
export async function toolSessionFiles(
  tool: 'claude' | 'codex' | 'pi',
  env: Record<string, string | undefined>,
  folder: string | null,
): Promise<{ file: string; subagents: string[] }[]> {
  const strings = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  )
  if (tool === 'claude')
    return (await (await import('./claude-files.js')).claudeSessionFiles(strings, folder)).map((found) => ({
      file: found.path,
      subagents: found.subagents,
    }))
  const files =
    tool === 'codex'
      ? await (await import('./codex.js')).codexSessionFiles(strings, folder)
      : await (await import('./pi-session-files.js')).piSessionFiles(strings, folder)
  return files.map((file) => ({ file, subagents: [] }))
}
