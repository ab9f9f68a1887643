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

/**
 * SIGKILLs every process whose environment carries `<commandMarkerVariable>=<marker>`, again until
 * none is left (one may fork while we look). Linux only (/proc); elsewhere it does nothing. A
 * process that cleared its environment (`env -i`) is not found: the process group and, when
 * sandboxed, the PID namespace are what end those.
 */
export function killMarked(marker: string): number {
  if (process.platform !== 'linux') return 0
  const entry = Buffer.from(`${commandMarkerVariable}=${marker}\0`)
  let killed = 0
  for (let round = 0; round < 10; round += 1) {
    let found = 0
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue
      let environment: Buffer
      try {
        environment = readFileSync(`/proc/${pid}/environ`)
      } catch {
        // Gone meanwhile, or another user's: not ours to end.
        continue
      }
      if (!environment.includes(entry) && !endsWithEntry(environment, entry)) continue
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

/** The last variable of /proc/<pid>/environ may lack its terminating NUL. */
function endsWithEntry(environment: Buffer, entry: Buffer): boolean {
  const body = entry.subarray(0, entry.length - 1)
  return (
    environment.length >= body.length && environment.subarray(environment.length - body.length).equals(body)
  )
}
