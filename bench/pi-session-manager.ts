// pi's SessionManager (@mariozechner/pi-coding-agent, a devDependency), loaded from its own
// module: the package's index would load its whole agent and TUI (~1,300 modules) as well.
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

/** The part of pi's AgentMessage the peer bench writes (pi-ai's UserMessage, AssistantMessage, ToolResultMessage). */
export type PiMessage = Record<string, unknown> & { role: 'user' | 'assistant' | 'toolResult' }

export interface PiEntry {
  type: string
  id: string
  message?: { role: string; content: string | { type: string; text?: string; name?: string }[] }
}

/** The methods of pi's SessionManager the bench calls (see its session-manager.d.ts). */
export interface PiSessionManager {
  appendMessage(message: PiMessage): string
  getEntries(): PiEntry[]
  getLeafId(): string | null
  getSessionId(): string
  getSessionFile(): string | undefined
  createBranchedSession(leafId: string): string | undefined
}

export interface PiSessionManagerClass {
  create(cwd: string, sessionDir: string): PiSessionManager
  open(file: string): PiSessionManager
  list(cwd: string, sessionDir: string): Promise<{ id: string; messageCount: number }[]>
}

const here = path.dirname(fileURLToPath(import.meta.url))
/** Where pi's SessionManager module lives (from bench/dist). */
export const piSessionManagerModule = path.join(
  here,
  '../../node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js',
)

export async function loadPiSessionManager(): Promise<PiSessionManagerClass> {
  const loaded = (await import(pathToFileURL(piSessionManagerModule).href)) as {
    SessionManager: PiSessionManagerClass
  }
  return loaded.SessionManager
}
