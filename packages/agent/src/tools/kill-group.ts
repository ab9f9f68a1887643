// Ending every process a command started. Its process group is not enough: `setsid` (or a
// daemon's double fork) leaves it. So each command also carries a marker in its environment,
// which its descendants inherit, and on Linux every process still carrying it is killed.
import { readdirSync, readFileSync } from 'node:fs'

/** Signals a process group started with `detached: true` (the command and everything it started). */
export function killGroup(pid: number | undefined, signalName: NodeJS.Signals): void {
  if (pid === undefined) return
  try {
    process.kill(-pid, signalName)
  } catch (error) {
    // ESRCH: the group is already gone, which is what we wanted.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
  }
}

/** The environment variable that marks a command's processes. */
export const commandMarkerVariable = 'TANGENT_COMMAND_ID'

/** A new marker: this process's id (whose commands they are) and a random part. */
export function newCommandMarker(): string {
  // node:crypto on first use (~10 ms to load): this module is in the read-only commands' chunk
  // (`tangent show`, `tangent sessions`), which never start a command.
  return `${process.pid}-${process.getBuiltinModule('node:crypto').randomBytes(12).toString('base64url')}`
}

/**
 * SIGKILLs every process whose environment carries `<commandMarkerVariable>=<marker>`, again until
 * none is left (one may fork while we look). Linux only (/proc); elsewhere it does nothing. A
 * process that cleared its environment (`env -i`) is not found: the process group and, when
 * sandboxed, the PID namespace are what end those.
 */
export function killMarked(marker: string): number {
  return killMarkedWhere((found) => found === marker)
}

/**
 * SIGKILLs what commands of a Tangent that no longer runs left behind: processes marked by a
 * process id that is gone (it was killed -9 while they ran unsandboxed; sandboxed ones died with it).
 */
export function killOrphanedCommands(): number {
  return killMarkedWhere((found) => {
    const owner = Number(found.split('-')[0])
    if (!Number.isInteger(owner) || owner <= 0 || owner === process.pid) return false
    try {
      process.kill(owner, 0)
      return false
    } catch (error) {
      // EPERM: alive, another user's.
      return (error as NodeJS.ErrnoException).code === 'ESRCH'
    }
  })
}

function killMarkedWhere(matches: (marker: string) => boolean): number {
  if (process.platform !== 'linux') return 0
  const prefix = `${commandMarkerVariable}=`
  let killed = 0
  for (let round = 0; round < 10; round += 1) {
    let found = 0
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue
      let environment: string
      try {
        environment = readFileSync(`/proc/${pid}/environ`, 'latin1')
      } catch {
        // Gone meanwhile, or another user's: not ours to end.
        continue
      }
      const entry = environment.split('\0').find((variable) => variable.startsWith(prefix))
      if (entry === undefined || !matches(entry.slice(prefix.length))) continue
      found += 1
      try {
        process.kill(Number(pid), 'SIGKILL')
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
      }
    }
    killed += found
    if (found === 0) break
  }
  return killed
}
