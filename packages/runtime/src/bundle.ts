// Exporting a session as a bundle or as Markdown, and importing a bundle (docs/architecture.md,
// "Moving in and out"; the bundle's lines: bundle-format.ts). An import keeps ids and lineage, so a
// bundle imported twice creates nothing new, and is all or nothing: every session of the bundle is
// replayed first in a scratch store (the event grammar and data schemas a log enforces), compared
// with what is here, and only then written; a failure while writing deletes what this import made.
import {
  openTurnAt,
  type Session,
  type SessionEvent,
  type SessionPersistence,
  SessionStore,
  TangentError,
} from '@tangent/core'
import type {
  ExportFormat,
  SessionExportParams,
  SessionExportResult,
  SessionImportResult,
} from '@tangent/protocol'
import {
  type BundleSession,
  type BundleSessionHeader,
  bundleDescriptionLine,
  bundleEventLine,
  bundleFormatName,
  bundleFormatVersion,
  bundleSessionLine,
  invalid,
  parseBundle,
} from './bundle-format.js'
import {
  isToolExportFormat,
  type ToolExporter,
  type ToolExportFormat,
  type ToolSessionFile,
} from './exports/export-types.js'
import type { HtmlExportInput, HtmlExportSession } from './exports/html-export.js'
import type { SessionBusy } from './session-busy.js'
import { writeSessionCopy } from './session-copy.js'
import { transcriptMarkdown } from './transcript-markdown.js'
import type { WriteAccess } from './write-access.js'

/** `session.export`'s params as a caller gives them (`format` defaults to `jsonl`). */
export type SessionExportRequest = Omit<SessionExportParams, 'format'> & {
  format?: SessionExportParams['format']
}

export interface SessionBundlesDeps {
  store: SessionPersistence
  access: WriteAccess
  busy: SessionBusy
  load(sessionId: string): Promise<Session>
  /** Tangent's version, written in a bundle's first line. */
  version: string
  /** This machine's name, recorded in a session imported into a shared store. */
  machine: string
  now?: () => number
}

/** An export's lines; `file` for a `claude` / `codex` / `pi` one (where it belongs, what resumes it). */
export interface ExportedLines {
  lines: string[]
  throughSeq: number
  file?: ToolSessionFile
}

/**
 * The exporters, each loaded when first used: they are most of the runtime's code and no
 * command but `export` needs them (every other command starts faster without compiling them).
 */
const toolExporters: Record<ToolExportFormat, () => Promise<ToolExporter>> = {
  claude: async () => (await import('./exports/claude-export.js')).exportClaude,
  codex: async () => (await import('./exports/codex-export.js')).exportCodex,
  pi: async () => (await import('./exports/pi-export.js')).exportPi,
}

/** How much text one `session.export` answer carries at most (whole lines; one longer line goes alone). */
export const maxExportPageChars = 4 * 1024 * 1024

/** One session of a chain being exported: its own events are `[from, through]`. */
interface ChainLink {
  session: Session
  from: number
  through: number
  /** Set when its parent is in the chain. */
  parent?: { id: string; forkedAt: number }
}

export class SessionBundles {
  readonly #deps: SessionBundlesDeps
  #lastExport: (ExportedLines & { key: string }) | null = null

  constructor(deps: SessionBundlesDeps) {
    this.#deps = deps
  }

  /**
   * The export as lines: a bundle (`jsonl`) or the transcript (`md`). A session in a turn is
   * exported through its last completed one; `throughSeq` pins that across pages.
   */
  async exportLines(
    sessionId: string,
    format: ExportFormat,
    throughSeq?: number,
    options: { tree?: boolean } = {},
  ): Promise<ExportedLines> {
    const chain = await this.#chain(sessionId, throughSeq)
    const last = chain.at(-1)!
    if (format === 'md') {
      return { lines: transcriptMarkdown(last.session, last.through).split('\n'), throughSeq: last.through }
    }
    const context = { now: (this.#deps.now ?? Date.now)(), version: this.#deps.version }
    if (format === 'html') {
      const exported = {
        session: last.session,
        throughSeq: last.through,
        model: await this.#modelOf(last.session.id),
      }
      const tree = options.tree ? await this.#treeOf(chain[0]!.session.id, exported) : undefined
      const { exportHtml } = await import('./exports/html-export.js')
      const html = await exportHtml({ exported, ...(tree ? { tree } : {}) }, context)
      return { lines: html.split('\n'), throughSeq: last.through }
    }
    if (isToolExportFormat(format)) {
      // pi's file is a tree: every session of the exported one's tree goes in (exports/pi-export.ts).
      const exported =
        format === 'pi'
          ? (await import('./exports/pi-export.js')).exportPiTree(
              last.session,
              last.through,
              context,
              await (await import('./exports/export-tree.js')).treeSessionsOf(last.session, {
                list: () => this.#deps.store.listView(),
                load: (id) => this.#deps.load(id),
              }),
            )
          : (await toolExporters[format]())(last.session, last.through, context)
      return { lines: exported.lines, throughSeq: last.through, file: exported.file }
    }
    const lines = [
      bundleDescriptionLine({
        format: bundleFormatName,
        version: bundleFormatVersion,
        exportedAt: new Date((this.#deps.now ?? Date.now)()).toISOString(),
        sessionId: last.session.id,
        tangentVersion: this.#deps.version,
      }),
    ]
    for (const link of chain) {
      lines.push(bundleSessionLine(await this.#headerOf(link)))
      for (let seq = link.from; seq <= link.through; seq++)
        lines.push(bundleEventLine(link.session.events[seq]!))
    }
    return { lines, throughSeq: last.through }
  }

  /** `session.export`: one page of the export (`cursor` from the previous page's `nextCursor`). */
  async exportPage(params: SessionExportRequest): Promise<SessionExportResult> {
    const format = params.format ?? 'jsonl'
    const cursor = parseCursor(params.cursor)
    const { lines, throughSeq, file } = await this.#pagedLines(
      params.sessionId,
      format,
      cursor?.throughSeq,
      params.tree === true,
    )
    const start = cursor?.line ?? 0
    let end = start
    let chars = 0
    while (end < lines.length && (end === start || chars + lines[end]!.length + 1 <= maxExportPageChars)) {
      chars += lines[end]!.length + 1
      end++
    }
    const content = lines.slice(start, end).join('\n') + (end > start ? '\n' : '')
    if (end >= lines.length) this.#lastExport = null
    return {
      format,
      content,
      ...(end < lines.length ? { nextCursor: `${end}.${throughSeq}` } : {}),
      ...(file ? { file } : {}),
    }
  }

  /**
   * The lines of the export a page is cut from. The pages of one export reuse the lines the first
   * built (kept until its last page, or another export), so a large export costs one build, not
   * one per page.
   */
  async #pagedLines(
    sessionId: string,
    format: ExportFormat,
    throughSeq: number | undefined,
    tree: boolean,
  ): Promise<ExportedLines> {
    const last = this.#lastExport
    const key = (seq: number | undefined) => `${sessionId} ${format} ${tree} ${seq}`
    if (last && throughSeq !== undefined && last.key === key(throughSeq)) return last
    const built = await this.exportLines(sessionId, format, throughSeq, { tree })
    this.#lastExport = { key: key(built.throughSeq), ...built }
    return built
  }

  /** `session.import`: a bundle's sessions into this store, parents first; all or nothing. */
  async importBundle(params: { content: string }): Promise<SessionImportResult> {
    this.#deps.access.assertWritable('import sessions')
    const bundle = parseBundle(params.content)
    const plan = await this.#plan(bundle.sessions)
    await this.#write(plan)
    return {
      sessions: plan.map((step) => ({
        id: step.session.header.id,
        source: 'tangent' as const,
        ...(step.session.header.parentSession !== undefined
          ? { parentSession: step.session.header.parentSession }
          : {}),
        status: step.status,
        ...(step.title !== undefined ? { title: step.title } : {}),
        events: step.eventCount,
      })),
    }
  }

  /** The session and the ancestors it inherits from, eldest first (a missing parent ends the chain). */
  async #chain(sessionId: string, throughSeq?: number): Promise<ChainLink[]> {
    const session = await this.#deps.load(sessionId)
    const through = throughSeq ?? lastCompletedSeq(session)
    if (!Number.isInteger(through) || through < -1 || through >= session.events.length)
      throw new TangentError(
        'invalid-params',
        `The export cursor names seq ${through}, past the session's events.`,
        {
          sessionId,
        },
      )
    const chain: ChainLink[] = [{ session, from: 0, through }]
    const seen = new Set([session.id])
    for (;;) {
      const child = chain[0]!
      const parentId = child.session.header.parentSession
      const forkedAt = child.session.header.forkedAt
      if (parentId === undefined || forkedAt === undefined || seen.has(parentId)) break
      // A parent deleted since (its child materialized its prefix): the chain starts at the child.
      if ((await this.#deps.store.get(parentId)) === undefined) break
      const parent = await this.#deps.load(parentId)
      seen.add(parentId)
      child.from = forkedAt + 1
      child.parent = { id: parentId, forkedAt }
      chain.unshift({ session: parent, from: 0, through: forkedAt })
    }
    return chain
  }

  /** The store's model of a session (`provider:model`), for a log that names none. */
  async #modelOf(sessionId: string): Promise<string | null> {
    const model = (await this.#deps.store.get(sessionId))?.model
    return model ? `${model.provider}:${model.model}` : null
  }

  /**
   * Every session of the tree under `rootId` (the eldest ancestor here), parents first, each
   * through its last completed turn; the exported one through its pinned seq. A session that
   * cannot be read is named, not dropped. (Only the exported session is pinned across pages:
   * the pages of one export reuse the lines the first built, see #pagedLines.)
   */
  async #treeOf(rootId: string, exported: HtmlExportSession): Promise<NonNullable<HtmlExportInput['tree']>> {
    const children = new Map<string, string[]>()
    for (const entry of await this.#deps.store.listView()) {
      if (entry.parentSession === null) continue
      const list = children.get(entry.parentSession) ?? []
      list.push(entry.id)
      children.set(entry.parentSession, list)
    }
    const sessions: HtmlExportSession[] = []
    const unreadable: { id: string; message: string }[] = []
    const seen = new Set<string>()
    const queue = [rootId]
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      if (seen.has(next)) continue
      seen.add(next)
      queue.push(...(children.get(next) ?? []))
      if (next === exported.session.id) {
        sessions.push(exported)
        continue
      }
      try {
        const session = await this.#deps.load(next)
        sessions.push({ session, throughSeq: lastCompletedSeq(session), model: await this.#modelOf(next) })
      } catch (error) {
        if (!(error instanceof TangentError)) throw error
        unreadable.push({ id: next, message: error.message })
      }
    }
    return { sessions, unreadable }
  }

  async #headerOf(link: ChainLink): Promise<BundleSessionHeader> {
    const header = link.session.header
    const entry = await this.#deps.store.get(link.session.id)
    const spawned = header.subagentOf as BundleSessionHeader['subagentOf'] | undefined
    return {
      id: header.id,
      ...(link.parent ? { parentSession: link.parent.id, forkedAt: link.parent.forkedAt } : {}),
      ...(header.title !== undefined ? { title: header.title } : {}),
      cwd: header.cwd,
      createdAt: header.createdAt,
      origin: header.origin,
      ...(entry?.model ? { model: entry.model } : {}),
      ...(spawned ? { subagentOf: spawned } : {}),
    }
  }

  /** Replays every session in a scratch store and compares it with this store's: what to write. */
  async #plan(sessions: readonly BundleSession[]): Promise<ImportStep[]> {
    const { store, load } = this.#deps
    const scratch = new SessionStore()
    const plan: ImportStep[] = []
    for (const bundled of sessions) {
      const { header } = bundled
      let replayed: Session
      const progress = { replayed: -1 }
      try {
        replayed = await replay(
          scratch,
          bundled,
          async (parentId) => {
            if ((await store.get(parentId)) === undefined)
              throw invalid(bundled.line, `its parent ${parentId} is neither in the bundle nor in this store`)
            return load(parentId)
          },
          progress,
        )
      } catch (error) {
        if (TangentError.hasCode(error, 'invalid-bundle')) throw error
        // The session line when making it failed (a bad fork point), else the event that did not replay.
        const line = progress.replayed < 0 ? bundled.line : bundled.line + 1 + progress.replayed
        throw invalid(line, error instanceof Error ? error.message.replace(/\.$/, '') : String(error))
      }
      const title =
        (replayed.latestOfType('session/title')?.data as { title?: string } | undefined)?.title ??
        header.title
      // An export stops at the last completed turn: a session ending inside one was cut or forged.
      if (replayed.isTurnOpen)
        throw invalid(
          bundled.line + bundled.events.length,
          `session ${header.id} ends inside a turn (a bundle holds completed turns)`,
        )
      if ((await store.get(header.id)) === undefined) {
        plan.push({
          session: bundled,
          status: 'created',
          tail: [],
          eventCount: replayed.events.length,
          title,
        })
        continue
      }
      const here = await load(header.id)
      if (header.parentSession !== undefined && here.header.parentSession !== header.parentSession)
        throw conflict(
          header.id,
          `here it is ${here.header.parentSession ? `a fork of ${here.header.parentSession}` : 'no fork'}, the bundle's is a fork of ${header.parentSession}`,
        )
      const mine = replayed.events
      const theirs = here.events
      for (let seq = 0; seq < Math.min(mine.length, theirs.length); seq++) {
        if (!sameEvent(mine[seq]!, theirs[seq]!))
          throw conflict(
            header.id,
            `its event ${seq} (${theirs[seq]!.type}) differs from the bundle's (${mine[seq]!.type})`,
          )
      }
      if (theirs.length >= mine.length) {
        plan.push({ session: bundled, status: 'existing', tail: [], eventCount: theirs.length, title })
      } else {
        this.#deps.busy.assertIdle(here, 'import more of its events')
        plan.push({
          session: bundled,
          status: 'appended',
          tail: mine.slice(theirs.length),
          eventCount: mine.length,
          title,
        })
      }
    }
    return plan
  }

  async #write(plan: readonly ImportStep[]): Promise<void> {
    const { store, access, load } = this.#deps
    const created: string[] = []
    try {
      for (const step of plan) {
        if (step.status === 'existing') continue
        const { header, events } = step.session
        await access.claimed(header.id, async () => {
          if (step.status === 'appended') {
            const here = await load(header.id)
            if (here.events.length + step.tail.length !== step.eventCount)
              throw conflict(header.id, 'it changed while the bundle was being imported')
            for (const event of step.tail) here.append(event.type, event.data, event.time)
          } else {
            const meta = {
              cwd: header.cwd,
              createdAt: header.createdAt,
              origin: header.origin,
              ...(header.title !== undefined ? { title: header.title } : {}),
              ...(header.subagentOf ? { subagentOf: header.subagentOf } : {}),
              ...(store.shared ? { machine: this.#deps.machine } : {}),
            }
            const parent =
              header.parentSession !== undefined
                ? { session: await load(header.parentSession), forkedAt: header.forkedAt! }
                : undefined
            // Noted once made, before its events: a refused event still leaves a session to roll back.
            writeSessionCopy(
              store.store,
              { id: header.id, meta, parent, events, firstSeq: parent ? parent.forkedAt + 1 : 0 },
              () => created.push(header.id),
            )
          }
          await store.flush(header.id)
        })
      }
    } catch (error) {
      // Children first, so no fork is left reading through a deleted parent.
      const leftOver: string[] = []
      for (const id of created.reverse()) {
        try {
          await access.claimed(id, () => store.delete(id))
        } catch (rollback) {
          leftOver.push(`${id} (${rollback instanceof Error ? rollback.message : String(rollback)})`)
        }
      }
      if (leftOver.length > 0 && error instanceof Error)
        error.message += ` Rolling the import back failed for ${leftOver.join(', ')}: delete them with \`tangent delete\`.`
      throw error
    }
  }
}

interface ImportStep {
  session: BundleSession
  status: 'created' | 'existing' | 'appended'
  /** `appended`: the events this store lacks. */
  tail: SessionEvent[]
  /** Events of the session after the import (inherited ones included). */
  eventCount: number
  /** Its latest title (a `session/title` event's, else its header's). */
  title: string | undefined
}

/** Replays a bundled session in the scratch store: the grammar and data checks of a real log. */
async function replay(
  scratch: SessionStore,
  bundled: BundleSession,
  loadHere: (parentId: string) => Promise<Session>,
  /** Own events replayed so far; -1 while the session itself is being made. */
  progress: { replayed: number },
): Promise<Session> {
  const { header } = bundled
  let session: Session
  if (header.parentSession !== undefined) {
    let parent = scratch.get(header.parentSession)
    if (!parent) {
      const here = await loadHere(header.parentSession)
      parent = scratch.create(here.id, { seed: here.events, loaded: true })
    }
    session = scratch.fork(parent, header.forkedAt!, header.id)
  } else {
    session = scratch.create(header.id)
  }
  progress.replayed = 0
  for (const event of bundled.events) {
    session.append(event.type, event.data, event.time)
    progress.replayed++
  }
  return session
}

function lastCompletedSeq(session: Session): number {
  const last = session.events.length - 1
  const open = openTurnAt(session.events, last)
  return open === null ? last : open - 1
}

function parseCursor(cursor: string | undefined): { line: number; throughSeq: number } | undefined {
  if (cursor === undefined) return undefined
  const match = /^(\d{1,12})\.(-1|\d{1,12})$/.exec(cursor)
  if (!match) throw new TangentError('invalid-params', `Not an export cursor: ${JSON.stringify(cursor)}.`, {})
  return { line: Number(match[1]), throughSeq: Number(match[2]) }
}

function conflict(sessionId: string, why: string): TangentError {
  return new TangentError(
    'import-conflict',
    `Session ${sessionId} already exists here with other content: ${why}. Nothing was imported.`,
    { sessionId },
  )
}

function sameEvent(a: SessionEvent, b: SessionEvent): boolean {
  return a.type === b.type && a.time === b.time && sameValue(a.data, b.data)
}

/** Deep equality of JSON values, key order aside (PostgreSQL's jsonb reorders keys). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const other = b as unknown[]
    return a.length === other.length && a.every((item, index) => sameValue(item, other[index]))
  }
  const left = Object.entries(a).filter(([, value]) => value !== undefined)
  const right = b as Record<string, unknown>
  const rightCount = Object.values(right).filter((value) => value !== undefined).length
  return left.length === rightCount && left.every(([key, value]) => sameValue(value, right[key]))
}
