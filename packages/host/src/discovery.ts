// The discovery file `TANGENT_HOME/host.json` ({pid, port, token, url}, mode 0600): how
// the CLI finds a running Host instead of hitting the writer lock. Stale files are ignored.
import { readFileSync, rmSync } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { writeFileAtomic } from '@tangent/runtime'
import { z } from 'zod'

export const HostDiscovery = z.object({
  pid: z.number().int().positive(),
  port: z.number().int().min(1).max(65535),
  token: z.string().min(1),
  /** The Host's origin, e.g. `http://127.0.0.1:4317` (no trailing slash). */
  url: z.string().url(),
})
export type HostDiscovery = z.infer<typeof HostDiscovery>

export function discoveryFile(home: string): string {
  return path.join(home, 'host.json')
}

export async function writeHostDiscovery(home: string, discovery: HostDiscovery): Promise<void> {
  await writeFileAtomic(discoveryFile(home), `${JSON.stringify(discovery)}\n`, 0o600)
}

/** Removes the file if it is still this Host's (same token): another Host's file is left alone. */
export function removeHostDiscovery(home: string, token: string): void {
  const file = discoveryFile(home)
  let current: HostDiscovery
  try {
    current = HostDiscovery.parse(JSON.parse(readFileSync(file, 'utf8')))
  } catch {
    return // absent or not ours to judge
  }
  if (current.token === token) rmSync(file, { force: true })
}

/**
 * The running Host of `home`, or null when there is none: no file, an unreadable one, a
 * dead pid, or a Host that does not answer `GET /healthz` within `timeoutMs`.
 */
export async function readHostDiscovery(
  home: string,
  options: { timeoutMs?: number } = {},
): Promise<HostDiscovery | null> {
  let discovery: HostDiscovery
  try {
    discovery = HostDiscovery.parse(JSON.parse(await fs.readFile(discoveryFile(home), 'utf8')))
  } catch {
    return null
  }
  if (!isProcessAlive(discovery.pid)) return null
  try {
    const response = await fetch(new URL('/healthz', discovery.url), {
      signal: AbortSignal.timeout(options.timeoutMs ?? 1500),
    })
    const body = await response.text()
    return response.ok && body.trim() === 'ok' ? discovery : null
  } catch {
    return null
  }
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
