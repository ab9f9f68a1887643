// `session.importFrom` / `tangent import --from claude|codex|pi`: every session file a tool keeps
// for one folder (or for all of them), found where that tool keeps them under this runtime's home
// (tool-homes.ts: CLAUDE_CONFIG_DIR, CODEX_HOME, PI_CODING_AGENT_DIR honoured), each imported as
// `session.import` imports one file (import-file.ts). A file that cannot be read or imported is a
// problem named with its path; the other files still go in. Run by the Host and the CLI, once.
import fs from 'node:fs'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import type { SessionImportFromParams, SessionImportFromResult, SessionImportResult } from '@tangent/protocol'
import { type ImportFileParams, toolSessionFiles } from './import-file.js'
import { firstLineOfFile, openSessionFile } from './import-lines.js'
import { importOrder } from './import-order.js'

export interface ImportFromDeps {
  /** The tools' variables (CLAUDE_CONFIG_DIR, CODEX_HOME, PI_CODING_AGENT_DIR…) and HOME. */
  env: Record<string, string | undefined>
  importFile(params: ImportFileParams): Promise<SessionImportResult>
}

export async function importFrom(
  deps: ImportFromDeps,
  params: SessionImportFromParams,
): Promise<SessionImportFromResult> {
  if (params.all !== true && params.cwd === undefined)
    throw new TangentError('invalid-params', 'session.importFrom needs cwd (a folder) or all: true.')
  const folder = params.all === true ? null : path.resolve(params.cwd ?? '/')
  const listed = await toolSessionFiles(params.tool, deps.env, folder)
  // A Codex rollout forked from another one goes after it, so it can fork its import (import-order.ts).
  const found =
    params.tool === 'codex'
      ? importOrder(listed.map(({ file }) => firstLineOfFile(file))).map((index) => listed[index]!)
      : listed
  const sessions: SessionImportFromResult['sessions'] = []
  const problems: SessionImportFromResult['problems'] = []
  for (const { file, subagents } of found) {
    try {
      // A subagent file that cannot be opened is said and passed over; the session goes in.
      const subagentFiles: string[] = []
      for (const sub of subagents) {
        try {
          fs.closeSync(openSessionFile(sub))
          subagentFiles.push(sub)
        } catch (error) {
          problems.push({ file: sub, message: messageOf(error) })
        }
      }
      const result = await deps.importFile({
        path: file,
        fileName: path.basename(file),
        ...(subagentFiles.length > 0 ? { subagentFiles } : {}),
      })
      sessions.push(...result.sessions)
      for (const problem of result.problems ?? [])
        problems.push({
          file,
          ...(problem.line !== undefined ? { line: problem.line } : {}),
          message: problem.message,
        })
    } catch (error) {
      // A bug is not a file's problem: only what the file caused is reported and passed over.
      if (!TangentError.isInstance(error)) throw error
      problems.push({ file, message: error.message })
    }
  }
  return { sessions, problems, files: found.length }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
