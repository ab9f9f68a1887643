// The discovery file `TANGENT_HOME/host.json` ({pid, port, token, url, instanceId}, mode
// 0600): how the CLI finds a running Host instead of hitting the writer lock. Stale files are
// ignored, and the token is only used with a Host that proves it wrote the file: a pid can be
// reused and the port taken by another program, which must never be sent the token.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { readFileSync, rmSync } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { writeFileAtomic } from '@tangent/runtime'
import { z } from 'zod'

/** Where a running Host is and its token (what a client needs to connect). */
export const HostDiscovery = z.object({
  pid: z.number().int().positive(),
  port: z.number().int().min(1).max(65535),
  token: z.string().min(1),
  /** The Host's origin, e.g. `http://127.0.0.1:4317` (no trailing slash). */
  url: z.string().url(),
})
export type HostDiscovery = z.infer<typeof HostDiscovery>

/** The file: the address and a random id of this Host's start, which never leaves the machine's disk. */
export const HostDiscoveryFile = HostDiscovery.extend({ instanceId: z.string().min(16).max(256) })
export type HostDiscoveryFile = z.infer<typeof HostDiscoveryFile>

/** The header of `GET /healthz?challenge=HEX` that proves the Host knows its instance id. */
export const proofHeader = 'x-tangent-proof'
const challengePattern = /^[0-9a-f]{32,128}$/

export function generateInstanceId(): string {
  return randomBytes(24).toString('base64url')
}

/** HMAC-SHA256 of a challenge keyed by the instance id (hex); null for a malformed challenge. */
export function healthProof(instanceId: string, challenge: string | undefined): string | null {
  if (challenge === undefined || !challengePattern.test(challenge)) return null
  return createHmac('sha256', instanceId).update(challenge).digest('hex')
}

export function discoveryFile(home: string): string {
  return path.join(home, 'host.json')
}

export async function writeHostDiscovery(home: string, discovery: HostDiscoveryFile): Promise<void> {
  await writeFileAtomic(discoveryFile(home), `${JSON.stringify(discovery)}\n`, 0o600)
}

/** What `host.json` says, unchecked (the Host may be gone or not answering); null when absent or unreadable. */
export function readHostDiscoveryFile(home: string): HostDiscoveryFile | null {
  try {
    return HostDiscoveryFile.parse(JSON.parse(readFileSync(discoveryFile(home), 'utf8')))
  } catch {
    return null
  }
}

/** Removes the file if it is still this Host's (same instance id): another Host's file is left alone. */
export function removeHostDiscovery(home: string, instanceId: string): void {
  // Absent or unreadable: not ours to judge.
  if (readHostDiscoveryFile(home)?.instanceId === instanceId) rmSync(discoveryFile(home), { force: true })
}

/**
 * The running Host of `home`, or null when there is none: no file, an unreadable one (or one
 * without an instance id), a dead pid, or a listener that does not answer `GET /healthz` within
 * `timeoutMs` with `ok` and the proof that it knows the file's instance id. Only the challenge
 * goes to that listener, never the token.
 */
export async function readHostDiscovery(
  home: string,
  options: { timeoutMs?: number } = {},
): Promise<HostDiscovery | null> {
  let discovery: HostDiscoveryFile
  try {
    discovery = HostDiscoveryFile.parse(JSON.parse(await fs.readFile(discoveryFile(home), 'utf8')))
  } catch {
    return null
  }
  if (!isProcessAlive(discovery.pid)) return null
  const challenge = randomBytes(32).toString('hex')
  try {
    const url = new URL('/healthz', discovery.url)
    url.searchParams.set('challenge', challenge)
    const response = await fetch(url, {
      signal: AbortSignal.timeout(options.timeoutMs ?? 1500),
      redirect: 'error',
    })
    const body = await response.text()
    const proof = response.headers.get(proofHeader) ?? ''
    const expected = healthProof(discovery.instanceId, challenge)!
    const proven =
      proof.length === expected.length && timingSafeEqual(Buffer.from(proof), Buffer.from(expected))
    if (!response.ok || body.trim() !== 'ok' || !proven) return null
    const { instanceId: _, ...address } = discovery
    return address
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
