// A session's transcript as Markdown (`tangent export --format md`, `session.export`): the user's
// and the assistant's texts in order, each tool call folded in a <details> block with its input and
// result, usage per turn. For reading and sharing; a bundle is what imports back.
import type { Session } from '@tangent/core'

interface Part {
  type: string
  text?: string
  toolCallId?: string
  toolName?: string
  input?: unknown
  mediaType?: string
}

/** Markdown of the session's events through `throughSeq` (inherited ones included). */
export function transcriptMarkdown(session: Session, throughSeq: number): string {
  const events = session.events.slice(0, throughSeq + 1)
  const titled = session.latestOfType('session/title', throughSeq)?.data as { title?: string } | undefined
  const title = titled?.title ?? session.header.title ?? 'Session'
  const out: string[] = [`# ${title.replace(/\s+/g, ' ')} (${session.id})`, '']
  out.push(`- Folder: \`${session.header.cwd}\``)
  if (session.header.parentSession !== undefined)
    out.push(`- Forked from ${session.header.parentSession} at event ${session.header.forkedAt}`)
  out.push(`- Created: ${new Date(session.header.createdAt).toISOString()}`, '')
  const calls = new Map<string, { name: string; input: unknown }>()
  let turnUsage = { input: 0, output: 0 }
  for (const event of events) {
    const data = (event.data ?? {}) as Record<string, unknown>
    switch (event.type) {
      case 'user/message':
        out.push(`## User`, '', ...partsText(data.content as Part[] | undefined), '')
        break
      case 'assistant/message': {
        const parts = (data.content as Part[] | undefined) ?? []
        const texts = parts.filter((part) => part.type === 'text' && part.text).map((part) => part.text!)
        if (texts.length > 0) out.push('## Assistant', '', texts.join('\n\n'), '')
        for (const part of parts)
          if (part.type === 'tool-call' && part.toolCallId)
            calls.set(part.toolCallId, { name: part.toolName ?? 'tool', input: part.input })
        break
      }
      case 'tool/result': {
        const call = calls.get(String(data.callId))
        const name = call?.name ?? String(data.toolName)
        out.push(
          '<details>',
          `<summary>Tool call: ${escapeHtml(name)}${data.isError === true ? ' (error)' : ''}</summary>`,
          '',
          'Input:',
          '',
          ...fenced(JSON.stringify(call?.input ?? null, null, 2), 'json'),
          '',
          'Result:',
          '',
          ...fenced(typeof data.output === 'string' ? data.output : JSON.stringify(data.output, null, 2), ''),
          '',
          '</details>',
          '',
        )
        break
      }
      case 'step/end': {
        const usage = data.usage as { inputTokens?: number; outputTokens?: number } | undefined
        turnUsage = {
          input: turnUsage.input + (usage?.inputTokens ?? 0),
          output: turnUsage.output + (usage?.outputTokens ?? 0),
        }
        break
      }
      case 'turn/end':
        out.push(`*Turn ${String(data.reason)}${usageText(turnUsage)}.*`, '')
        if (typeof data.error === 'string') out.push(`> Error: ${data.error}`, '')
        turnUsage = { input: 0, output: 0 }
        break
      case 'model/selection':
        out.push(`*Model: ${String(data.provider)}:${String(data.model)}*`, '')
        break
      case 'context/compacted':
        out.push('*The history before this point was summarised.*', '')
        break
      default:
        break
    }
  }
  return `${out.join('\n').trimEnd()}\n`
}

function partsText(parts: Part[] | undefined): string[] {
  return (parts ?? []).map((part) =>
    part.type === 'text' ? (part.text ?? '') : `*(attached ${part.mediaType ?? 'file'})*`,
  )
}

function usageText(usage: { input: number; output: number }): string {
  return usage.input + usage.output > 0 ? ` · ${usage.input} tokens in, ${usage.output} out` : ''
}

/** A fence longer than any backtick run in the text, so the text cannot close it. */
function fenced(text: string, language: string): string[] {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length))
  const fence = '`'.repeat(longest + 1)
  return [`${fence}${language}`, text, fence]
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => `&#${char.charCodeAt(0)};`)
}
