// Import and Export in the web UI (docs/architecture.md, "Moving in and out"): the Host reads and
// writes; the page sends a file's text (in pieces when larger than one message: session.importBegin /
// importChunk), asks for a tool's sessions of the open folder (session.importFrom), and joins the
// pages of an export for a download.
import { fitsOneImportMessage, importChunks } from '@tangent/protocol'
import type { SessionsStore } from './sessions-store.js'
import type { StoreDeps } from './store-deps.js'
import type { ExportFormat, ImportedSession, RpcClient } from './wire.js'

export type ImportTool = 'claude' | 'codex' | 'pi'

/** What importing one file (or one tool's files) came to. */
export interface ImportOutcome {
  /** The file's name, or the tool's name for "from Claude Code / Codex / pi". */
  readonly name: string
  readonly sessions: readonly ImportedSession[]
  /** Lines or files that could not be read (the rest was imported). */
  readonly problems: readonly string[]
  /** The whole file was refused (nothing written): why. */
  readonly error?: string
  /** For a tool: how many session files it had. */
  readonly files?: number
}

/** An export joined from its pages, ready to download. */
export interface ExportedFile {
  readonly content: string
  readonly fileName: string
  readonly mediaType: string
  /** claude / codex / pi: where that agent looks for the file and the id it resumes. */
  readonly tool?: { readonly tool: ImportTool; readonly sessionId: string; readonly path: string }
}

export interface ImportExportDeps extends StoreDeps {
  readonly sessions: SessionsStore
}

export class ImportExportStore {
  readonly #deps: ImportExportDeps

  constructor(deps: ImportExportDeps) {
    this.#deps = deps
  }

  /** Imports each file in turn; one refused file does not stop the others. */
  async importFiles(
    files: readonly { name: string; text: () => Promise<string> }[],
  ): Promise<ImportOutcome[]> {
    const outcomes: ImportOutcome[] = []
    for (const file of files) {
      try {
        const content = await file.text()
        if (content.length === 0) {
          outcomes.push({ name: file.name, sessions: [], problems: [], error: 'The file is empty.' })
          continue
        }
        const result = await importText(this.#deps.client(), content, file.name)
        outcomes.push({
          name: file.name,
          sessions: result.sessions,
          problems: (result.problems ?? []).map((problem) =>
            problem.line !== undefined ? `line ${problem.line}: ${problem.message}` : problem.message,
          ),
        })
      } catch (error) {
        outcomes.push({ name: file.name, sessions: [], problems: [], error: messageOf(error) })
      }
    }
    await this.#refresh()
    return outcomes
  }

  /** A tool's sessions of `cwd` (the open folder), read by the Host where that tool keeps them. */
  async importFrom(tool: ImportTool, cwd: string): Promise<ImportOutcome> {
    const name = toolNames[tool]
    try {
      const result = await this.#deps.client().call('session.importFrom', { tool, cwd })
      await this.#refresh()
      return {
        name,
        sessions: result.sessions,
        files: result.files,
        problems: result.problems.map(
          (problem) =>
            `${baseName(problem.file)}${problem.line !== undefined ? `:${problem.line}` : ''}: ${problem.message}`,
        ),
      }
    } catch (error) {
      return { name, sessions: [], problems: [], error: messageOf(error) }
    }
  }

  /** Every page of the session's export, joined. */
  async exportSession(sessionId: string, format: ExportFormat, tree = false): Promise<ExportedFile> {
    const client = this.#deps.client()
    const parts: string[] = []
    let cursor: string | undefined
    let file: ExportedFile['tool']
    do {
      const page = await client.call('session.export', {
        sessionId,
        format,
        ...(tree && format === 'html' ? { tree } : {}),
        ...(cursor !== undefined ? { cursor } : {}),
      })
      parts.push(page.content)
      if (page.file) file = page.file
      cursor = page.nextCursor
    } while (cursor !== undefined)
    const content = parts.join('')
    const fileName = file ? baseName(file.path) : `${sessionId}${extensions[format]}`
    return { content, fileName, mediaType: mediaTypes[format], ...(file ? { tool: file } : {}) }
  }

  /** New sessions and lineage as the Host now has them (imports announce them too; this is the whole list). */
  async #refresh(): Promise<void> {
    const { state, sessions } = this.#deps
    try {
      state.set(
        sessions.listedPatch(await this.#deps.client().call('session.list', { includeArchived: true })),
      )
    } catch (error) {
      this.#deps.notices.report(error)
    }
  }
}

/** `session.import` of one file's text: in one message when it fits, else uploaded in pieces. */
async function importText(client: RpcClient, content: string, fileName: string) {
  if (fitsOneImportMessage(content)) return client.call('session.import', { content, fileName })
  const { uploadId } = await client.call('session.importBegin', { size: content.length, fileName })
  let index = 0
  for (const data of importChunks(content))
    await client.call('session.importChunk', { uploadId, index: index++, data })
  return client.call('session.import', { uploadId, fileName })
}

export const toolNames: Record<ImportTool, string> = { claude: 'Claude Code', codex: 'Codex', pi: 'pi' }

const extensions: Record<ExportFormat, string> = {
  jsonl: '.tangent.jsonl',
  md: '.md',
  html: '.html',
  claude: '.jsonl',
  codex: '.jsonl',
  pi: '.jsonl',
}

const mediaTypes: Record<ExportFormat, string> = {
  jsonl: 'application/jsonl',
  md: 'text/markdown',
  html: 'text/html',
  claude: 'application/jsonl',
  codex: 'application/jsonl',
  pi: 'application/jsonl',
}

function baseName(file: string): string {
  return file.split(/[\\/]/).pop() || file
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
