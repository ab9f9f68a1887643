// `tangent diff A B`: where two sessions diverged, each side's turns since, and the file diff.
import type { UsageSplit } from '@tangent/protocol'
import type { Command } from 'commander'
import type { FileDiff, SessionEvent } from '../backend.js'
import { UsageError } from '../cli-error.js'
import type { CliContext } from '../context.js'
import { withBackend } from '../open-backend.js'
import { printJson, printLines } from '../output.js'
import { assistantContent, userText } from '../render/event-text.js'
import { clip, type Style, safeLine, safeText, styleFor } from '../render/style.js'
import { usageLines } from '../render/usage-lines.js'

interface DiffFlags {
  json?: boolean
  stat?: boolean
  nameOnly?: boolean
  patch?: boolean
}

/** Past this many patch lines the file diff is summarised (unless `--patch`). */
export const maxPatchLines = 2000

export function registerDiffCommand(program: Command, context: CliContext): void {
  program
    .command('diff')
    .description('Compare two sessions: common ancestor, the turns after the fork point, and the file diff')
    .argument('<a>', 'session id or a unique prefix of one')
    .argument('<b>', 'session id or a unique prefix of one')
    .option('--stat', 'the files only, each with its +/− line counts')
    .option('--name-only', 'the names of the files that differ, one a line, and nothing else')
    .option(
      '--patch',
      `the whole file diff even when the sessions work in different folders or it is over ${maxPatchLines} lines`,
    )
    .option('--json', 'print {ancestor, forkSeq, a: {events, usage}, b: {events, usage}, files}')
    .action(async (givenA: string, givenB: string, flags: DiffFlags) => {
      const shown = [
        flags.stat && '--stat',
        flags.nameOnly && '--name-only',
        flags.patch && '--patch',
      ].filter(Boolean)
      if (shown.length > 1) throw new UsageError(`diff takes one of ${shown.join(', ')}`)
      const { a, b, folders, result } = await withBackend(context, { readOnly: true }, async (backend) => {
        const [a, b] = [await backend.resolveSession(givenA), await backend.resolveSession(givenB)]
        const result = await backend.compare(a, b)
        const folders = await Promise.all(
          [a, b].map(
            async (id) => (await backend.getSession(id, Number.MAX_SAFE_INTEGER)).session.files.path,
          ),
        )
        return { a, b, folders, result }
      })
      if (flags.json) return printJson(context, result)
      const style = styleFor(context.stdout, context.env)
      if (flags.nameOnly)
        return printLines(
          context,
          result.files.map((file) => safeLine(file.path)),
        )
      const counts = result.files.map(lineCounts)
      if (flags.stat) return printLines(context, statLines(result.files, counts, style))
      const lines: string[] = [
        result.ancestor === null
          ? style.dim('No common history: these sessions are unrelated.')
          : style.dim(
              `Common ancestor ${result.ancestor}; shared history through seq ${result.forkSeq ?? '?'}.`,
            ),
        '',
        style.bold(`${a}:`),
        ...sideUsage(result.a.usage, style),
        ...turnLines(result.a.events, style),
        '',
        style.bold(`${b}:`),
        ...sideUsage(result.b.usage, style),
        ...turnLines(result.b.events, style),
        '',
      ]
      if (result.files.length === 0)
        lines.push(style.dim('Files: no differences between their latest snapshots.'))
      const patchLines = counts.reduce((sum, count) => sum + count.lines, 0)
      const why =
        flags.patch === true
          ? null
          : result.ancestor === null && folders[0] !== folders[1]
            ? `they share no history and work in different folders (${safeLine(folders[0]!)}, ${safeLine(folders[1]!)})`
            : patchLines > maxPatchLines
              ? `the diff is ${patchLines} lines`
              : null
      if (why !== null && result.files.length > 0) {
        lines.push(...statLines(result.files, counts, style))
        lines.push(style.dim(`A summary: ${why}. The whole diff: tangent diff ${a} ${b} --patch`))
      } else {
        for (const file of result.files) {
          lines.push(style.bold(safeLine(`${file.status} ${file.path}`)), ...colourPatch(file.patch, style))
        }
      }
      printLines(context, lines)
    })
}

interface LineCounts {
  added: number
  removed: number
  /** The patch's lines, to tell a huge diff. */
  lines: number
}

/** Lines added and removed by a unified diff (its `+++`/`---` file lines apart). */
export function lineCounts(file: FileDiff): LineCounts {
  let added = 0
  let removed = 0
  let lines = 0
  for (const line of file.patch.split('\n')) {
    if (line === '') continue
    lines++
    if (line.startsWith('+++ ') || line.startsWith('--- ')) continue
    if (line.startsWith('+')) added++
    else if (line.startsWith('-')) removed++
  }
  return { added, removed, lines }
}

/** `--stat`: a line per file (`+12 −3  modified src/a.ts`) and the totals. */
function statLines(files: readonly FileDiff[], counts: readonly LineCounts[], style: Style): string[] {
  if (files.length === 0) return [style.dim('Files: no differences between their latest snapshots.')]
  const width = Math.max(...counts.map((count) => `+${count.added} −${count.removed}`.length))
  const lines = files.map((file, index) => {
    const { added, removed } = counts[index]!
    const figures = `${style.green(`+${added}`)} ${style.red(`−${removed}`)}`
    const pad = ' '.repeat(width - `+${added} −${removed}`.length)
    return `${figures}${pad}  ${safeLine(`${file.status} ${file.path}`)}`
  })
  const added = counts.reduce((sum, count) => sum + count.added, 0)
  const removed = counts.reduce((sum, count) => sum + count.removed, 0)
  lines.push(style.dim(`${files.length} file${files.length === 1 ? '' : 's'} changed, +${added} −${removed}`))
  return lines
}

/** What the side spent since the fork point, and in all. */
function sideUsage(usage: UsageSplit | undefined, style: Style): string[] {
  return usage ? usageLines(usage, style, { own: 'since the fork', inherited: 'shared' }) : []
}

function turnLines(events: readonly SessionEvent[], style: Style): string[] {
  const lines: string[] = []
  for (const event of events) {
    if (event.type === 'user/message')
      lines.push(`  ${style.dim(String(event.seq))} ${style.green('you')} ${clip(userText(event.data), 90)}`)
    if (event.type === 'assistant/message') {
      const { text } = assistantContent(event.data)
      if (text !== '')
        lines.push(`  ${style.dim(String(event.seq))} ${style.blue('assistant')} ${clip(text, 90)}`)
    }
  }
  return lines.length > 0 ? lines : [style.dim('  (no turns after the fork point)')]
}

function colourPatch(patch: string, style: Style): string[] {
  return patch
    .replace(/\n$/, '')
    .split('\n')
    .map((raw) => {
      // A patch line is the file's own text: shown escaped (tabs kept), then coloured.
      const line = safeText(raw)
      if (line.startsWith('+') && !line.startsWith('+++')) return style.green(line)
      if (line.startsWith('-') && !line.startsWith('---')) return style.red(line)
      if (line.startsWith('@@')) return style.cyan(line)
      return line
    })
}
