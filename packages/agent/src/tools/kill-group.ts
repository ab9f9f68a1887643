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
