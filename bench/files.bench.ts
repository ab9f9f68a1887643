// @tangent/files: snapshot, worktree fork and restore on a generated 10,000-file git project,
// each against a plain git command on the same tree in the same run.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { asSeq, type SessionEvent } from '@tangent/core'
import { FileState } from '@tangent/files'
import { generateProject, git, projectFileCount } from './git-project.js'
import { type BenchRow, type BenchSuite, median, timeIt } from './table.js'

function snapshotEvent(seq: number, data: { tree: string; changed: string[] }): SessionEvent {
  return { seq: asSeq(seq), time: 0, type: 'snapshot/taken', data }
}

/**
 * CPU time (user + system) of this process's finished children, in ms, from /proc (Linux);
 * NaN elsewhere. Unlike wall time it hardly moves with the load of a shared machine.
 */
function childCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // Fields 16 and 17 of proc(5) (cutime, cstime), counted from field 3 after the name.
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100
  } catch {
    return Number.NaN
  }
}

interface Measured {
  wall: number[]
  cpuMs: number
}

/** Runs `fn` `iterations` times, recording wall times and the children's CPU time per run. */
async function measure(
  iterations: number,
  fn: (i: number) => Promise<unknown>,
  before?: (i: number) => void,
) {
  const result: Measured = { wall: [], cpuMs: 0 }
  for (let i = 0; i < iterations; i++) {
    before?.(i)
    const cpu = childCpuMs()
    const start = process.hrtime.bigint()
    await fn(i)
    result.wall.push(Number(process.hrtime.bigint() - start) / 1e6)
    result.cpuMs += childCpuMs() - cpu
  }
  result.cpuMs /= iterations
  return result
}

function storeBytes(files: FileState): Promise<number> {
  return files.gc().then((result) => result.bytesAfter)
}

export const suite: BenchSuite = {
  title: `@tangent/files on a ${projectFileCount.toLocaleString('en')}-file git project`,
  async run(): Promise<BenchRow[]> {
    const root = mkdtempSync(path.join(os.tmpdir(), 'tangent-bench-files-'))
    try {
      const cwd = await generateProject(root)
      const files = new FileState({ home: path.join(root, 'home') })
      const rows: BenchRow[] = []

      const first = await timeIt(() => files.snapshot(cwd), 1, 0)
      await git(cwd, 'status', '--porcelain')
      await files.snapshot(cwd)

      // Baseline and measure alternate, so both see the same load on a shared machine; the
      // children's CPU time per operation is printed too, being much less load-dependent.
      const load = os.loadavg()[0]?.toFixed(1) ?? ''
      const status = async () => git(cwd, 'status', '--porcelain')
      const unchangedStatus: Measured = { wall: [], cpuMs: 0 }
      const unchanged: Measured = { wall: [], cpuMs: 0 }
      for (let i = 0; i < 15; i++) {
        const a = await measure(1, status)
        const b = await measure(1, () => files.snapshot(cwd))
        unchangedStatus.wall.push(...a.wall)
        unchangedStatus.cpuMs += a.cpuMs / 15
        unchanged.wall.push(...b.wall)
        unchanged.cpuMs += b.cpuMs / 15
      }
      const statusRow = { name: 'git status --porcelain', medianMs: median(unchangedStatus.wall) }
      rows.push({
        name: 'first snapshot (empty store, hashes every file)',
        medianMs: median(first),
        baseline: statusRow,
      })
      const unchangedMedian = median(unchanged.wall)
      rows.push({
        name: 'snapshot, unchanged tree',
        medianMs: unchangedMedian,
        baseline: statusRow,
        extra: {
          'cpu/op (git)': `${unchanged.cpuMs.toFixed(0)} ms`,
          'baseline cpu/op': `${unchangedStatus.cpuMs.toFixed(0)} ms`,
          'load avg': load,
        },
        target: { text: 'median ≤ 100 ms', met: unchangedMedian <= 100 },
      })

      // The snapshot every turn starts with (issue 26): the directory as the session left it, so
      // nothing is recorded. Against the same git status, alternating, in the same run.
      const sessionTree = (await files.snapshot(cwd)).tree
      const turnStartStatus: Measured = { wall: [], cpuMs: 0 }
      const turnStart: Measured = { wall: [], cpuMs: 0 }
      for (let i = 0; i < 15; i++) {
        const a = await measure(1, status)
        const b = await measure(1, async () => {
          const found = await files.snapshotTurnStart(cwd, sessionTree)
          if (found !== null) throw new Error(`expected no change, got ${found.outside?.length ?? 0}`)
        })
        turnStartStatus.wall.push(...a.wall)
        turnStartStatus.cpuMs += a.cpuMs / 15
        turnStart.wall.push(...b.wall)
        turnStart.cpuMs += b.cpuMs / 15
      }
      const turnStartRatio = median(turnStart.wall) / median(turnStartStatus.wall)
      rows.push({
        name: 'turn-start snapshot, unchanged tree (nothing recorded)',
        medianMs: median(turnStart.wall),
        baseline: { name: 'git status --porcelain', medianMs: median(turnStartStatus.wall) },
        extra: {
          'cpu/op (git)': `${turnStart.cpuMs.toFixed(0)} ms`,
          'baseline cpu/op': `${turnStartStatus.cpuMs.toFixed(0)} ms`,
          'load avg': os.loadavg()[0]?.toFixed(1) ?? '',
        },
        target: { text: 'median ≤ 1.2× git status', met: turnStartRatio <= 1.2 },
      })

      const edited = path.join(cwd, 'src', 'module3', 'part4', 'file83.ts')
      const changedStatus: Measured = { wall: [], cpuMs: 0 }
      const changed: Measured = { wall: [], cpuMs: 0 }
      for (let i = 0; i < 15; i++) {
        writeFileSync(edited, `export const edited = ${i}\n`)
        const a = await measure(1, status)
        const b = await measure(1, async () => {
          const snapshot = await files.snapshot(cwd)
          if (snapshot.changed.length !== 1)
            throw new Error(`expected one changed path, got ${snapshot.changed.length}`)
        })
        changedStatus.wall.push(...a.wall)
        changedStatus.cpuMs += a.cpuMs / 15
        changed.wall.push(...b.wall)
        changed.cpuMs += b.cpuMs / 15
      }
      const changedMedian = median(changed.wall)
      rows.push({
        name: 'snapshot, one file changed',
        medianMs: changedMedian,
        baseline: { name: 'git status --porcelain (same change)', medianMs: median(changedStatus.wall) },
        extra: {
          'cpu/op (git)': `${changed.cpuMs.toFixed(0)} ms`,
          'baseline cpu/op': `${changedStatus.cpuMs.toFixed(0)} ms`,
          'load avg': os.loadavg()[0]?.toFixed(1) ?? '',
        },
        target: { text: 'median ≤ 150 ms', met: changedMedian <= 150 },
      })

      const bytesAfterSnapshots = await storeBytes(files)
      rows.push({
        name: 'gc of the snapshot store (after 17 snapshots)',
        medianMs: median(await timeIt(() => files.gc(), 3, 0)),
        extra: { 'store size': `${(bytesAfterSnapshots / 1024 / 1024).toFixed(1)} MiB` },
      })

      const tree = (await files.snapshot(cwd)).tree
      let plainIndex = 0
      const plainTimes = await timeIt(
        async () => {
          const target = path.join(root, `plain-${plainIndex++}`)
          await git(cwd, 'worktree', 'add', '--quiet', '--detach', target, 'HEAD')
        },
        3,
        0,
      )
      let forkIndex = 0
      const forkTimes = await timeIt(
        async () => {
          await files.createWorktree({ cwd, tree, sessionId: `fork${forkIndex++}` })
        },
        3,
        0,
      )
      rows.push({
        name: 'worktree fork (git worktree + fork-point content)',
        medianMs: median(forkTimes),
        baseline: { name: 'git worktree add', medianMs: median(plainTimes) },
        extra: { 'load avg': os.loadavg()[0]?.toFixed(1) ?? '' },
      })
      for (let i = 0; i < forkIndex; i++) {
        await files.removeWorktree(path.join(root, 'home', 'worktrees', `fork${i}`), { force: true })
      }

      // Restore of one file: the session changed it once after seq 0; rewind to seq 0.
      const restoreTimes: number[] = []
      const checkoutTimes: number[] = []
      const victim = path.join(cwd, 'src', 'module7', 'part2', 'file47.ts')
      for (let i = 0; i < 10; i++) {
        const base = await files.snapshot(cwd)
        writeFileSync(victim, `export const broken = ${i}\n`)
        const after = await files.snapshot(cwd)
        const events = [snapshotEvent(0, base), snapshotEvent(1, after)]
        const start = process.hrtime.bigint()
        const result = await files.restore({ cwd, events, inheritedEventCount: 0, toSeq: 0 })
        restoreTimes.push(Number(process.hrtime.bigint() - start) / 1e6)
        if (result.restored.length !== 1)
          throw new Error(`expected one restored path, got ${result.restored.length}`)
        writeFileSync(victim, 'scratch\n')
        const checkoutStart = process.hrtime.bigint()
        await git(cwd, 'checkout', '--', path.relative(cwd, victim))
        checkoutTimes.push(Number(process.hrtime.bigint() - checkoutStart) / 1e6)
      }
      rows.push({
        name: 'restore of one file (undo snapshot + conflict check + write + snapshot)',
        medianMs: median(restoreTimes),
        baseline: { name: 'git checkout -- <file>', medianMs: median(checkoutTimes) },
        extra: { 'load avg': os.loadavg()[0]?.toFixed(1) ?? '' },
      })
      return rows
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  },
}
