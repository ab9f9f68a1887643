// `tangent export --format html [--tree]` (docs/architecture.md, "Moving in and out"): one
// self-contained HTML file, readable offline, that makes no network request. Its policy
// (`default-src 'none'`) lets in only its own inline stylesheet and data: images; it runs no
// script: tool calls fold in <details>, branches are reached by links, so the keyboard and a
// screen reader need nothing else. Everything from a session is escaped (html-text.ts) and its
// Markdown rendered without raw HTML (html-markdown.ts).
//
// Without `tree`: the session's whole history (inherited turns included, a line where its own
// start). With `tree`: every session of its tree, each a section with its own turns; a fork says
// which turn of which branch it forked after (a link there), and that turn links to its forks.
import type { Session } from '@tangent/core'
import type { ExportContext } from './export-types.js'
import { loadMarkdownRenderer, type MarkdownToHtml } from './html-markdown.js'
import { htmlExportStyle } from './html-style.js'
import { count, escapeHtml, OutputBudget, oneLine, timeElement } from './html-text.js'
import {
  type FileLink,
  renderTranscript,
  type TranscriptResult,
  turnId,
  turnsThrough,
  usageText,
} from './html-transcript.js'

/** One session in the file, through its last completed turn. */
export interface HtmlExportSession {
  session: Session
  throughSeq: number
  /** The model the store lists for it (`provider:model`), for a log that names none. */
  model: string | null
}

export interface HtmlExportInput {
  /** The exported session; without `tree` the file shows its history alone, inherited turns included. */
  exported: HtmlExportSession
  /**
   * `--tree`: every session of its tree, each parent before its children (the exported one
   * among them), and those of the tree that could not be read (named in the file, not dropped).
   */
  tree?: {
    sessions: readonly HtmlExportSession[]
    unreadable: readonly { id: string; message: string }[]
  }
}

/** The Content-Security-Policy of the file: nothing but its inline styles and data: images. */
export const htmlExportPolicy =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

export async function exportHtml(input: HtmlExportInput, context: ExportContext): Promise<string> {
  const markdown = await loadMarkdownRenderer()
  return input.tree
    ? treeDocument(input.exported, input.tree, markdown, context)
    : sessionDocument(input.exported, markdown, context)
}

function titleOf(entry: HtmlExportSession): string {
  const titled = entry.session.latestOfType('session/title', entry.throughSeq)?.data as
    | { title?: unknown }
    | undefined
  const title = typeof titled?.title === 'string' ? titled.title : entry.session.header.title
  return oneLine(typeof title === 'string' && title.trim() !== '' ? title : 'Untitled session')
}

function sectionId(session: Session): string {
  return `s-${session.id}`
}

interface HeaderMeta {
  exploration?: { label?: unknown }
  subagentOf?: { callId?: unknown }
}

function sessionDocument(entry: HtmlExportSession, markdown: MarkdownToHtml, context: ExportContext): string {
  const { session } = entry
  const forkedAt = session.header.forkedAt
  const parentId = session.header.parentSession
  const ownFrom = forkedAt !== undefined ? forkedAt + 1 : 0
  const inheritedTurns = forkedAt !== undefined ? turnsThrough(session, forkedAt) : 0
  const transcript = renderTranscript({
    session,
    from: 0,
    through: entry.throughSeq,
    idPrefix: `${sectionId(session)}-`,
    markdown,
    budget: new OutputBudget(),
    fallbackModel: entry.model,
    ...(parentId !== undefined && ownFrom > 0 && ownFrom <= entry.throughSeq
      ? {
          divider: {
            beforeSeq: ownFrom,
            html: `<p class="divider">Above: the history this session inherits from <span class="mono">${escapeHtml(parentId)}</span> (${turnsPhrase(inheritedTurns)}). Below: its own.</p>`,
          },
        }
      : {}),
  })
  const title = titleOf(entry)
  const forked =
    parentId !== undefined
      ? `<span class="mono">${escapeHtml(parentId)}</span>, after turn ${inheritedTurns} (its turns 1–${inheritedTurns} are shown here too)`
      : undefined
  return documentHtml({
    title,
    heading: title,
    context,
    body: sessionSection(entry, title, transcript, { forked, sectionHeading: 'Transcript' }),
  })
}

function treeDocument(
  exported: HtmlExportSession,
  tree: NonNullable<HtmlExportInput['tree']>,
  markdown: MarkdownToHtml,
  context: ExportContext,
): string {
  const byId = new Map(tree.sessions.map((entry) => [entry.session.id, entry]))
  const children = new Map<string, HtmlExportSession[]>()
  const roots: HtmlExportSession[] = []
  for (const entry of tree.sessions) {
    const parent = entry.session.header.parentSession
    if (parent !== undefined && byId.has(parent) && parent !== entry.session.id) {
      const list = children.get(parent) ?? []
      list.push(entry)
      children.set(parent, list)
    } else roots.push(entry)
  }
  // Reading order: depth first, each parent before its forks, as the list of branches shows them.
  const ordered: HtmlExportSession[] = []
  const seen = new Set<string>()
  const visit = (entry: HtmlExportSession) => {
    if (seen.has(entry.session.id)) return
    seen.add(entry.session.id)
    ordered.push(entry)
    for (const child of children.get(entry.session.id) ?? []) visit(child)
  }
  for (const root of roots) visit(root)

  const titles = new Map(ordered.map((entry) => [entry.session.id, titleOf(entry)]))
  const inTree = (entry: HtmlExportSession) => {
    const parent = entry.session.header.parentSession
    return parent !== undefined && byId.has(parent) && parent !== entry.session.id ? byId.get(parent)! : null
  }
  /** The turn of its parent a fork comes after (0: before any). */
  const forkTurn = new Map<string, number>()
  for (const entry of ordered) {
    const parent = inTree(entry)
    if (parent)
      forkTurn.set(entry.session.id, turnsThrough(parent.session, entry.session.header.forkedAt ?? -1))
  }

  const budget = new OutputBudget()
  const sections: string[] = []
  const results = new Map<string, TranscriptResult>()
  for (const entry of ordered) {
    const { session } = entry
    const parent = inTree(entry)
    const from = parent ? (session.header.forkedAt ?? -1) + 1 : 0
    const branchesAfterTurn = new Map<number, FileLink[]>()
    const subagentsByCall = new Map<string, FileLink>()
    for (const child of children.get(session.id) ?? []) {
      const link = { href: `#${sectionId(child.session)}`, text: titles.get(child.session.id)! }
      const callId = (child.session.header as HeaderMeta).subagentOf?.callId
      if (typeof callId === 'string') subagentsByCall.set(callId, link)
      const turn = forkTurn.get(child.session.id)!
      const list = branchesAfterTurn.get(turn) ?? []
      list.push(link)
      branchesAfterTurn.set(turn, list)
    }
    const transcript = renderTranscript({
      session,
      from,
      through: entry.throughSeq,
      idPrefix: `${sectionId(session)}-`,
      markdown,
      budget,
      fallbackModel: entry.model,
      branchesAfterTurn,
      subagentsByCall,
    })
    results.set(session.id, transcript)
    let forked: string | undefined
    let inherited: string | undefined
    if (parent) {
      const turn = forkTurn.get(session.id)!
      const href =
        turn > 0 ? `#${turnId(`${sectionId(parent.session)}-`, turn)}` : `#${sectionId(parent.session)}`
      const parentTitle = escapeHtml(titles.get(parent.session.id)!)
      forked = `<a href="${href}">${parentTitle}</a>, after turn ${turn}`
      if (turn > 0)
        inherited = `<p class="inherited">Turns 1–${turn} are the history it inherits: <a href="#${sectionId(parent.session)}">read them in “${parentTitle}”</a>.</p>`
    } else if (session.header.parentSession !== undefined) {
      forked = `<span class="mono">${escapeHtml(session.header.parentSession)}</span> (not in this file), after turn ${turnsThrough(session, session.header.forkedAt ?? -1)}`
    }
    sections.push(
      sessionSection(entry, titles.get(session.id)!, transcript, {
        forked,
        inherited,
        exported: session.id === exported.session.id,
        backLink: true,
      }),
    )
  }

  const listItem = (entry: HtmlExportSession): string => {
    const id = entry.session.id
    const result = results.get(id)!
    const details: string[] = []
    const meta = entry.session.header as HeaderMeta
    if (typeof meta.subagentOf?.callId === 'string') details.push('subagent')
    if (typeof meta.exploration?.label === 'string')
      details.push(`exploration branch ${escapeHtml(oneLine(meta.exploration.label, 40))}`)
    if (forkTurn.has(id)) details.push(`forked after turn ${forkTurn.get(id)}`)
    details.push(`${turnsPhrase(result.turns)} of its own`)
    const current = id === exported.session.id
    const kids = children.get(id) ?? []
    return (
      `<li><a href="#${sectionId(entry.session)}"${current ? ' aria-current="true"' : ''}>${escapeHtml(titles.get(id)!)}</a>` +
      `${current ? ' <span class="badge">exported</span>' : ''} <span class="muted">· ${details.join(' · ')}</span>` +
      (kids.length > 0 ? `<ul>${kids.map(listItem).join('')}</ul>` : '') +
      '</li>'
    )
  }
  const unreadable =
    tree.unreadable.length > 0
      ? `<p>Not in this file (could not be read): ${tree.unreadable
          .map(
            (problem) =>
              `<span class="mono">${escapeHtml(problem.id)}</span> (${escapeHtml(oneLine(problem.message, 300))})`,
          )
          .join(', ')}.</p>`
      : ''
  const nav =
    `<nav class="tree-nav" id="branches" aria-labelledby="branches-h"><h2 id="branches-h">Branches</h2>` +
    `<p class="muted">${count(ordered.length)} session${ordered.length === 1 ? '' : 's'}; each forks from its parent after a completed turn.</p>` +
    `<ul>${roots.map(listItem).join('')}</ul>${unreadable}</nav>`
  const rootTitle = titles.get(ordered[0]?.session.id ?? '') ?? titleOf(exported)
  return documentHtml({
    title: `${rootTitle} (tree)`,
    heading: `Session tree: ${rootTitle}`,
    context,
    nav,
    body: sections.join('\n'),
  })
}

function turnsPhrase(turns: number): string {
  return `${count(turns)} turn${turns === 1 ? '' : 's'}`
}

function sessionSection(
  entry: HtmlExportSession,
  title: string,
  transcript: TranscriptResult,
  options: {
    forked?: string | undefined
    inherited?: string | undefined
    exported?: boolean
    sectionHeading?: string
    backLink?: boolean
  },
): string {
  const { session } = entry
  const id = sectionId(session)
  const meta = session.header as HeaderMeta
  const rows: [string, string][] = [['Session', `<span class="mono">${escapeHtml(session.id)}</span>`]]
  if (options.forked) rows.push(['Forked from', options.forked])
  if (typeof meta.subagentOf?.callId === 'string')
    rows.push(['Subagent of', `tool call <span class="mono">${escapeHtml(meta.subagentOf.callId)}</span>`])
  if (typeof meta.exploration?.label === 'string')
    rows.push(['Exploration', `branch ${escapeHtml(oneLine(meta.exploration.label, 40))}`])
  rows.push(['Folder', `<span class="mono">${escapeHtml(String(session.header.cwd))}</span>`])
  const models = transcript.models.length > 0 ? transcript.models : entry.model ? [entry.model] : []
  if (models.length > 0)
    rows.push([models.length > 1 ? 'Models' : 'Model', models.map((model) => escapeHtml(model)).join(', ')])
  rows.push(['Created', timeElement(session.header.createdAt)])
  const last = session.events[entry.throughSeq]
  if (last) rows.push(['Last event', timeElement(last.time)])
  rows.push(['Turns', `${turnsPhrase(transcript.turns)}${usageText(transcript.totals)}`])
  const heading = options.sectionHeading ?? title
  return [
    `<section class="session" id="${id}" aria-labelledby="${id}-h" tabindex="-1">`,
    `<h2 id="${id}-h">${escapeHtml(heading)}${options.exported ? ' <span class="badge">exported</span>' : ''}</h2>`,
    `<dl class="meta">${rows.map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`).join('')}</dl>`,
    options.inherited ?? '',
    transcript.html,
    transcript.turns === 0 ? '<p class="note">No turns of its own.</p>' : '',
    options.backLink ? '<p class="back"><a href="#branches">Back to the branches</a></p>' : '',
    '</section>',
  ].join('\n')
}

function documentHtml(parts: {
  title: string
  heading: string
  context: ExportContext
  nav?: string
  body: string
}): string {
  const exportedAt = timeElement(parts.context.now)
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${htmlExportPolicy}">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<meta name="generator" content="Tangent ${escapeHtml(parts.context.version)}">`,
    `<title>${escapeHtml(oneLine(parts.title, 120))} · Tangent</title>`,
    `<style>${htmlExportStyle}</style>`,
    '</head>',
    '<body>',
    '<a class="skip" href="#main">Skip to the transcript</a>',
    '<div class="page">',
    '<header class="doc">',
    `<h1>${escapeHtml(parts.heading)}</h1>`,
    `<p class="muted">Exported from Tangent ${escapeHtml(parts.context.version)} on ${exportedAt}.</p>`,
    '</header>',
    parts.nav ?? '',
    '<main id="main" tabindex="-1">',
    parts.body,
    '</main>',
    '<footer class="doc"><p>One self-contained file: it runs no script and loads nothing from the network. Tool calls fold open; times are UTC.</p></footer>',
    '</div>',
    '</body>',
    '</html>',
    '',
  ].join('\n')
}
