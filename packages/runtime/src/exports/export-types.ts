// What the exporters of `session.export` share (docs/architecture.md, "Moving in and out"): the
// formats, and the session file another agent resumes (`claude`, `codex`, `pi`).
import type { Session } from '@tangent/core'

/** The agents a session can be exported to, as a file that agent resumes. */
export const toolExportFormats = ['claude', 'codex', 'pi'] as const
export type ToolExportFormat = (typeof toolExportFormats)[number]

export function isToolExportFormat(format: string): format is ToolExportFormat {
  return (toolExportFormats as readonly string[]).includes(format)
}

/** Where the file of a `claude` / `codex` / `pi` export belongs, and how that agent resumes it. */
export interface ToolSessionFile {
  tool: ToolExportFormat
  /** The id that agent resumes (`claude --resume ID`, `codex resume ID`); pi resumes by file. */
  sessionId: string
  /** Where that agent looks for it, relative to its home (`~/.claude`, `~/.codex`, `~/.pi/agent`). */
  path: string
}

export interface ExportContext {
  /** Now, in ms since the epoch (for the tool's own "written at" fields where one is needed). */
  now: number
  /** Tangent's version. */
  version: string
}

/** A `claude` / `codex` / `pi` export: the file's lines and where it belongs. */
export interface ToolExport {
  lines: string[]
  file: ToolSessionFile
}

/** One exporter to another agent: the session's history through `throughSeq` (inherited events included). */
export type ToolExporter = (session: Session, throughSeq: number, context: ExportContext) => ToolExport
