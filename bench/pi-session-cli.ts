// The peer side of the whole-process rows of peers.bench.ts: a small script that opens a pi
// session and prints it (`show FILE`), or lists a pi session directory as JSON (`list DIR`).
import { loadPiSessionManager } from './pi-session-manager.js'

const SessionManager = await loadPiSessionManager()
const [mode, target] = process.argv.slice(2)
if (mode === 'show' && target) {
  const manager = SessionManager.open(target)
  const lines = [`session ${manager.getSessionId()}`]
  for (const entry of manager.getEntries()) {
    if (entry.type !== 'message' || !entry.message) continue
    const content = entry.message.content
    const text =
      typeof content === 'string'
        ? content
        : content.map((part) => part.text ?? (part.name ? `[tool ${part.name}]` : `[${part.type}]`)).join(' ')
    lines.push(`${entry.id} ${entry.message.role}: ${text}`)
  }
  process.stdout.write(`${lines.join('\n')}\n`)
} else if (mode === 'list' && target) {
  process.stdout.write(`${JSON.stringify(await SessionManager.list(target, target))}\n`)
} else {
  process.stderr.write('usage: pi-session-cli show FILE | list DIR\n')
  process.exit(2)
}
