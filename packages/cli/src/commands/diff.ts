// `tangent diff A B`: where two sessions diverged, each side's turns since, and the file diff.
import type { UsageSplit } from '@tangent/protocol'
import type { Command } from 'commander'
import type { SessionEvent } from '../backend.js'
import type { CliContext } from '../context.js'
import { withBackend } from '../open-backend.js'
import { printJson, printLines } from '../output.js'
import { assistantContent, userText } from '../render/event-text.js'
import { clip, type Style, safeLine, safeText, styleFor } from '../render/style.js'
import { usageLines } from '../render/usage-lines.js'

export function registerDiffCommand(program: Command, context: CliContext): void {
  program
    .command('diff')
    .description('Compare two sessions: common ancestor, the turns after the fork point, and the file diff')
    .argument('<a>', 'session id or a unique prefix of one')
    .argument('<b>', 'session id or a unique prefix of one')
    .option('--json', 'print {ancestor, forkSeq, a: {events, usage}, b: {events, usage}, files}')
    .action(async (givenA: string, givenB: string, flags: { json?: boolean }) => {
      const { a, b, result } = await withBackend(context, { readOnly: true }, async (backend) => {
        const [a, b] = [await backend.resolveSession(givenA), await backend.resolveSession(givenB)]
        return { a, b, result: await backend.compare(a, b) }
      })
      if (flags.json) return printJson(context, result)
      const style = styleFor(context.stdout, context.env)
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
      for (const file of result.files) {
        lines.push(style.bold(safeLine(`${file.status} ${file.path}`)), ...colourPatch(file.patch, style))
      }
      printLines(context, lines)
    })
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
