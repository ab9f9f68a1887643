// Test support: stdio "MCP servers" that never answer and write their pid to a file, so a test can
// check that the real process is gone once Tangent has let go of it (docs/architecture.md §14.3).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { onTestFinished } from 'vitest'
import type { McpStdioServer } from './mcp-server-config.js'

/**
 * argv: PID_FILE [stubborn] [group]. `stubborn` ignores SIGTERM (and never reads stdin, so a
 * closed input does not end it either); `group` starts a stubborn child of its own that holds
 * none of Tangent's pipes and writes its pid to PID_FILE.child.
 */
const script = `
const fs = require('node:fs')
const { spawn } = require('node:child_process')
const [pidFile, ...flags] = process.argv.slice(1)
if (flags.includes('stubborn')) process.on('SIGTERM', () => {})
if (flags.includes('group'))
  spawn(process.execPath, ['-e', process.env.STUCK_SERVER_SCRIPT, pidFile + '.child', 'stubborn'], { stdio: 'ignore' })
fs.writeFileSync(pidFile, String(process.pid))
setInterval(() => {}, 1000)
`

/** A server config that runs the script; `setsid` makes it the leader of its own process group. */
export function stuckServer(options: { stubborn?: boolean; group?: boolean } = {}): {
  server: McpStdioServer
  pidFile: string
} {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-stuck-mcp-'))
  // Called inside a test: its folder goes when the test ends.
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }))
  const pidFile = path.join(dir, 'pid')
  const flags = [...(options.stubborn ? ['stubborn'] : []), ...(options.group ? ['group'] : [])]
  const node = [process.execPath, '-e', script, pidFile, ...flags]
  const [command, ...args] = options.group ? ['setsid', ...node] : node
  return { server: { command: command!, args, env: { STUCK_SERVER_SCRIPT: script } }, pidFile }
}

/** The pid a stuck server wrote, once it has (null while it has not started yet). */
export function pidIn(file: string): number | null {
  try {
    return Number(fs.readFileSync(file, 'utf8'))
  } catch {
    return null
  }
}

export async function waitForPid(file: string): Promise<number> {
  for (;;) {
    const pid = pidIn(file)
    if (pid) return pid
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Alive and not a zombie (an orphan whose reaper never reaps it, as in some containers, is dead). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false
    throw error
  }
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
}

/**
 * For a process Tangent does not wait for (a grandchild sent SIGKILL with its group): whether it
 * is gone once the kernel has delivered the signal. A bound, not a measurement: 5 s.
 */
export async function isGoneSoon(pid: number): Promise<boolean> {
  for (let waited = 0; waited < 5_000; waited += 20) {
    if (!isRunning(pid)) return true
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return false
}
