// Keeps the shadow snapshot store compact (docs/architecture.md §5, "storage is bounded"): the Host
// runs FileState.gc some minutes after it starts and then once a day, off the hot path.
import type { FileState } from '@tangent/files'

export interface SnapshotGcSchedule {
  firstDelayMs: number
  intervalMs: number
}

export const defaultSnapshotGcSchedule: SnapshotGcSchedule = {
  firstDelayMs: 10 * 60 * 1000,
  intervalMs: 24 * 60 * 60 * 1000,
}

/** Starts the schedule; returns the function that stops it. Failures are reported, not fatal. */
export function scheduleSnapshotGc(
  files: Pick<FileState, 'gc'>,
  report: (error: unknown) => void,
  schedule: SnapshotGcSchedule = defaultSnapshotGcSchedule,
): () => void {
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  const run = () => {
    files
      .gc()
      .catch(report)
      .finally(() => {
        if (!stopped) timer = setTimeout(run, schedule.intervalMs).unref()
      })
  }
  timer = setTimeout(run, schedule.firstDelayMs).unref()
  return () => {
    stopped = true
    clearTimeout(timer)
  }
}
