// One writer per data directory: `<dir>/lock` is created exclusively (link of a complete
// temp file, so it is never seen half-written) and names its holder. A lock whose holder
// is dead is taken over under a second exclusive file, so two processes racing for a
// stale lock cannot both win.
import { closeSync, fchmodSync, linkSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import { unlink } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { lazySchema } from '@tangent/core/lazy-zod'
import type { z } from 'zod'
import { openFlags, privateFileMode, tempFileFor } from './durable-fs.js'

export const LockHolder = lazySchema((z) =>
  z.looseObject({
    pid: z.number().int().positive(),
    hostname: z.string(),
    startedAt: z.number(),
    token: z.string().optional(),
  }),
)
export type LockHolder = z.infer<typeof LockHolder>

const maxAttempts = 20

export class WriterLock {
  readonly file: string
  readonly holder: LockHolder
  /** True when a stale lock (dead holder) was taken over: the last writer did not close cleanly. */
  readonly tookOver: boolean

  constructor(file: string, holder: LockHolder, tookOver: boolean) {
    this.file = file
    this.holder = holder
    this.tookOver = tookOver
  }

  /** Removes the lock if it is still ours. */
  async release(): Promise<void> {
    const current = readHolder(this.file)
    if (current === 'missing' || current === 'unreadable' || current.token !== this.holder.token) return
    await unlink(this.file)
  }
}

/** Takes the writer lock or throws `store-locked` naming the live holder. */
export async function acquireWriterLock(file: string): Promise<WriterLock> {
  const mine: LockHolder = {
    pid: process.pid,
    hostname: os.hostname(),
    startedAt: Date.now(),
    token: process.getBuiltinModule('node:crypto').randomBytes(8).toString('hex'), // node:crypto on first use (durable-fs.ts)
  }
  let tookOver = false
  let lastHolder: LockHolder | null = null
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    // Not fsynced: after a power loss no process holds the lock anyway.
    if (createExclusive(file, mine)) return new WriterLock(file, mine, tookOver)
    const holder = readHolder(file)
    if (holder === 'missing') continue
    if (holder !== 'unreadable') {
      lastHolder = holder
      if (isAlive(holder)) throw storeLocked(file, holder)
    }
    if (await removeStaleLock(file, holder, mine)) tookOver = true
    else await sleep(10 + attempt * 5)
  }
  throw storeLocked(file, lastHolder)
}

function storeLocked(file: string, holder: LockHolder | null): TangentError {
  const who = holder ? `process ${holder.pid} on ${holder.hostname}` : 'another process'
  return new TangentError(
    'store-locked',
    `The data directory ${path.dirname(file)} is in use by ${who} (lock ${file}). Stop that process (or use a read-only open); if it is gone, remove the lock file.`,
    {
      file,
      pid: holder?.pid ?? null,
      hostname: holder?.hostname ?? null,
      startedAt: holder?.startedAt ?? null,
    },
  )
}

/** Alive, or on another host (which this process cannot check, so it counts as alive). */
function isAlive(holder: LockHolder): boolean {
  if (holder.hostname !== os.hostname()) return true
  try {
    process.kill(holder.pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

// The lock's small file operations are synchronous: they run once, at open, and a
// round trip through the thread pool per step is most of an open's latency on a busy machine.
function createExclusive(file: string, holder: LockHolder): boolean {
  const temp = tempFileFor(file)
  try {
    writePrivateFile(temp, JSON.stringify(holder))
  } catch (error) {
    // A full disk can let the file be made and not written: it goes, whatever stopped it.
    try {
      unlinkSync(temp)
    } catch {}
    throw error
  }
  try {
    linkSync(temp, file)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  } finally {
    unlinkSync(temp)
  }
}

/** Creates `file` (it must not exist) with mode 0600 whatever the umask, and writes `text`. */
function writePrivateFile(file: string, text: string): void {
  const fd = openSync(file, openFlags.createNew, privateFileMode)
  try {
    fchmodSync(fd, privateFileMode)
    const data = Buffer.from(text)
    let offset = 0
    while (offset < data.length) offset += writeSync(fd, data, offset)
  } finally {
    closeSync(fd)
  }
}

function readHolder(file: string): LockHolder | 'missing' | 'unreadable' {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing'
    throw error
  }
  try {
    const parsed = LockHolder.safeParse(JSON.parse(text))
    return parsed.success ? parsed.data : 'unreadable'
  } catch {
    return 'unreadable' // a damaged lock names nobody alive: it is taken over like a stale one
  }
}

function sameHolder(a: LockHolder | 'missing' | 'unreadable', b: LockHolder | 'unreadable'): boolean {
  if (a === 'missing') return false
  if (a === 'unreadable' || b === 'unreadable') return a === b
  return a.pid === b.pid && a.startedAt === b.startedAt && a.token === b.token
}

/**
 * Removes `file` if it still holds the stale `holder`, while holding `<file>.takeover`.
 * Returns false when another process is mid-takeover (the caller retries).
 */
async function removeStaleLock(
  file: string,
  holder: LockHolder | 'unreadable',
  mine: LockHolder,
): Promise<boolean> {
  const guard = `${file}.takeover`
  if (!createExclusive(guard, mine)) {
    const guardHolder = readHolder(guard)
    // A guard left by a process that died mid-takeover would block everyone forever.
    if (guardHolder !== 'missing' && (guardHolder === 'unreadable' || !isAlive(guardHolder)))
      await unlink(guard).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error
      })
    return false
  }
  try {
    if (!sameHolder(readHolder(file), holder)) return false
    await unlink(file)
    return true
  } finally {
    await unlink(guard)
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
