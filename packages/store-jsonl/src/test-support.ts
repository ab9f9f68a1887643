// Helpers shared by this package's tests (not built into dist): temp data dirs,
// realistic turns, raw log access, and child processes that use the built package.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Session } from '@tangent/core'

/** The built entry of this package, for child processes. */
export const distEntry = fileURLToPath(new URL('../dist/index.js', import.meta.url))

const madeDirs: string[] = []

/** A fresh data dir under the temp dir; removeTempDataDirs (each file's afterEach) removes it. */
export function tempDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-'))
  madeDirs.push(dir)
  return dir
}

/** Removes every dir tempDataDir made so far: call after the test's stores and children are gone. */
export function removeTempDataDirs(): void {
  for (const dir of madeDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 })
}

export function logFile(dir: string, id: string): string {
  return path.join(dir, 'sessions', `${id}.jsonl`)
}

export function logLines(dir: string, id: string): string[] {
  return fs
    .readFileSync(logFile(dir, id), 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
}

/** One complete turn: a user message, a step with a tool call and its result, a final text step. */
export function appendTurn(session: Session, text: string, options: { tool?: boolean } = {}): void {
  session.append('turn/start', {})
  session.append('user/message', { content: [{ type: 'text', text }] })
  if (options.tool !== false) {
    const callId = `call-${session.events.length}`
    session.append('step/start', {})
    session.append('assistant/message', {
      content: [{ type: 'tool-call', toolCallId: callId, toolName: 'read', input: { path: 'a.txt' } }],
    })
    session.append('tool/result', {
      callId,
      toolName: 'read',
      output: `contents for ${text}`,
      isError: false,
    })
    session.append('step/end', { finishReason: 'tool-calls' })
  }
  session.append('step/start', {})
  session.append('assistant/message', { content: [{ type: 'text', text: `answer to ${text}` }] })
  session.append('step/end', { finishReason: 'stop' })
  session.append('turn/end', { reason: 'completed' })
}

/** Runs an ES module script with node; resolves with its exit code and output. */
export function runScript(
  dir: string,
  source: string,
  args: string[] = [],
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const file = path.join(dir, `script-${Math.random().toString(36).slice(2)}.mjs`)
  fs.writeFileSync(file, source)
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
}
