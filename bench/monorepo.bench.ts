// Snapshots in a 100,000-file monorepo (issue 33): a session's first turn, the next turn with the
// tree unchanged and with one file changed, each as the extra time over the same turn in a tiny
// repository, against `git status --porcelain` of the big one, measured in the same run; and
// what the first turn leaves in the data directory against the repository's `.git`. The
// FileStates watch their folders between turns, as a Host's (and chat's, tui's, acp's) do; a
// row shows the next turn of one process per turn, which cannot watch.
import { lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { FileState } from '@tangent/files'
import { generateMonorepo, git, monorepoFile } from './git-project.js'
import { type BenchRow, type BenchSuite, median } from './table.js'

const fileCount = Number(process.env.TANGENT_BENCH_MONOREPO_FILES ?? 100_000)

/** Bytes on disk (allocated blocks) and number of files under `root`. */
function diskUsage(root: string): { bytes: number; files: number } {
  let bytes = 0
  let files = 0
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name)
      const info = lstatSync(full)
      bytes += info.blocks * 512
      if (entry.isDirectory()) walk(full)
      else files++
    }
  }
  walk(root)
  return { bytes, files }
}

async function elapsed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint()
  await fn()
  return Number(process.hrtime.bigint() - start) / 1e6
}

/**
 * A turn's file work as the agent does it: the snapshot at its start (the session's first when
 * `since` is null), then the snapshot after a step that ran a tool. Returns the session's tree.
 */
async function turn(files: FileState, cwd: string, since: string | null): Promise<string> {
  await files.snapshotTurnStart(cwd, since)
  return (await files.snapshot(cwd)).tree
}

/**
 * A turn whose one step edited a file with Tangent's own `write` tool: the snapshot at its start,
 * then the step's snapshot of just that file (FileState.snapshotAfterWrites), no second walk.
 */
async function writeTurn(files: FileState, cwd: string, since: string, relative: string, text: string) {
  const start = await files.snapshotTurnStart(cwd, since)
  writeFileSync(path.join(cwd, relative), text)
  return (await files.snapshotAfterWrites(cwd, [relative], { tree: start?.tree ?? since, skipped: [] })).tree
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

export const suite: BenchSuite = {
  title: `Snapshots in a ${fileCount.toLocaleString('en')}-file git monorepo (first turn, next turns, data directory)`,
  async run(): Promise<BenchRow[]> {
    const root = mkdtempSync(path.join(os.tmpdir(), 'tangent-bench-monorepo-'))
    try {
      const big = await generateMonorepo(path.join(root, 'big'), fileCount)
      const tiny = await generateMonorepo(path.join(root, 'tiny'), 10)
      const status = () => git(big, 'status', '--porcelain')
      await status() // warm the file system cache as a person's repository is
      const statusTimes: number[] = []
      const sample = async () => statusTimes.push(await elapsed(status))

      // First turn, in a fresh data directory each time, big and tiny alternating. A watching
      // FileState (a Host's) starts its watch only after a folder's second walk, in the
      // background: no first turn includes it, so these FileStates do not watch (their watches'
      // set-up would otherwise run during the next first turn measured).
      const firstExtra: number[] = []
      let usage = { bytes: 0, files: 0 }
      let bigTree = ''
      for (let i = 0; i < 3; i++) {
        await sample()
        const tinyFiles = new FileState({ home: path.join(root, `home-tiny-${i}`) })
        const tinyMs = await elapsed(() => turn(tinyFiles, tiny, null))
        const home = path.join(root, `home-big-${i}`)
        const files = new FileState({ home })
        let tree = ''
        const bigMs = await elapsed(async () => {
          tree = await turn(files, big, null)
        })
        firstExtra.push(bigMs - tinyMs)
        if (i === 0) {
          usage = diskUsage(home)
          bigTree = tree
        }
      }
      const load = () => os.loadavg()[0]?.toFixed(1) ?? ''
      const dotGit = diskUsage(path.join(big, '.git'))
      const index = lstatSync(path.join(big, '.git', 'index')).blocks * 512

      // Next turns, as a Host takes them: a watching FileState on the first data directory. Its
      // first two turns walk (the watch starts after the second, in the background; its set-up
      // time is a row below), the third takes the watch's first mark: none of them counted.
      const bigFiles = new FileState({ home: path.join(root, 'home-big-0'), watch: true })
      const tinyFiles = new FileState({ home: path.join(root, 'home-tiny-next'), watch: true })
      let tinyTree = await turn(tinyFiles, tiny, null)
      for (let i = 0; i < 2; i++) {
        tinyTree = await turn(tinyFiles, tiny, tinyTree)
        bigTree = await turn(bigFiles, big, bigTree)
      }
      const watchState = await bigFiles.watchState(big)
      if (!watchState.watching) throw new Error(`the watch did not start: ${watchState.broken}`)
      if (!(await tinyFiles.watchState(tiny)).watching) throw new Error('the tiny watch did not start')
      tinyTree = await turn(tinyFiles, tiny, tinyTree)
      bigTree = await turn(bigFiles, big, bigTree)
      const unchangedExtra: number[] = []
      const changedExtra: number[] = []
      const changedStatus: number[] = []
      const writeExtra: number[] = []
      // One process per turn (`tangent run` with no Host serving the data directory): a new
      // FileState each turn, so no watch; its turn start walks as its step does.
      const oneShotExtra: number[] = []
      const oneShot = async (home: string, cwd: string, since: string) =>
        turn(new FileState({ home }), cwd, since)
      for (let i = 0; i < 5; i++) {
        await sample()
        const tinyMs = await elapsed(async () => {
          tinyTree = await turn(tinyFiles, tiny, tinyTree)
        })
        const bigMs = await elapsed(async () => {
          bigTree = await turn(bigFiles, big, bigTree)
        })
        unchangedExtra.push(bigMs - tinyMs)

        writeFileSync(path.join(tiny, monorepoFile(3)), `export const edited = ${i}\n`)
        writeFileSync(path.join(big, monorepoFile(4242)), `export const edited = ${i}\n`)
        changedStatus.push(await elapsed(status))
        const tinyChanged = await elapsed(async () => {
          tinyTree = await turn(tinyFiles, tiny, tinyTree)
        })
        const bigChanged = await elapsed(async () => {
          bigTree = await turn(bigFiles, big, bigTree)
        })
        changedExtra.push(bigChanged - tinyChanged)

        const tinyWrite = await elapsed(async () => {
          tinyTree = await writeTurn(
            tinyFiles,
            tiny,
            tinyTree,
            monorepoFile(5),
            `export const written = ${i}\n`,
          )
        })
        const bigWrite = await elapsed(async () => {
          bigTree = await writeTurn(
            bigFiles,
            big,
            bigTree,
            monorepoFile(4343),
            `export const written = ${i}\n`,
          )
        })
        writeExtra.push(bigWrite - tinyWrite)

        const tinyOneShot = await elapsed(async () => {
          tinyTree = await oneShot(path.join(root, 'home-tiny-next'), tiny, tinyTree)
        })
        const bigOneShot = await elapsed(async () => {
          bigTree = await oneShot(path.join(root, 'home-big-0'), big, bigTree)
        })
        oneShotExtra.push(bigOneShot - tinyOneShot)
        // The one-shot turns moved no snapshot (nothing changed): the watches' marks stand.
      }
      bigFiles.close()
      tinyFiles.close()
      // The watch's set-up, in the background after a first turn (between it and the next turn,
      // as a person meets it): from the first turn's end until it watches every folder.
      const setUp = new FileState({ home: path.join(root, 'home-big-0'), watch: true })
      await turn(setUp, big, bigTree)
      const watchStart = process.hrtime.bigint()
      await setUp.watchState(big)
      const watchMs = Number(process.hrtime.bigint() - watchStart) / 1e6
      setUp.close()
      const statusRow = { name: 'git status --porcelain (big repository)', medianMs: median(statusTimes) }
      const first = median(firstExtra)
      const unchanged = median(unchangedExtra)
      const changed = median(changedExtra)
      const limit = 0.25 * dotGit.bytes + index
      return [
        {
          name: 'first turn, extra over a tiny repository',
          medianMs: first,
          baseline: statusRow,
          extra: { 'load avg': load() },
          target: { text: '≤ 3× git status', met: first <= 3 * statusRow.medianMs },
        },
        {
          name: 'next turn, tree unchanged (extra)',
          medianMs: unchanged,
          baseline: statusRow,
          extra: { 'load avg': load() },
          target: { text: '≤ 1.2× git status', met: unchanged <= 1.2 * statusRow.medianMs },
        },
        {
          name: 'next turn, one file changed (extra)',
          medianMs: changed,
          baseline: { name: 'git status --porcelain (same change)', medianMs: median(changedStatus) },
          extra: { 'load avg': load() },
          target: { text: '≤ 1.5× git status', met: changed <= 1.5 * median(changedStatus) },
        },
        {
          name: 'next turn, tree unchanged, one process per turn: no watch (extra; no target)',
          medianMs: median(oneShotExtra),
          baseline: statusRow,
          extra: { 'load avg': load() },
        },
        {
          name: `the folder's watch: set-up in the background after a first turn (${watchState.folders.toLocaleString('en')} folders; no target)`,
          medianMs: watchMs,
          baseline: statusRow,
          extra: { 'load avg': load() },
        },
        {
          name: 'next turn whose step wrote one file with `write` (extra; no issue target)',
          medianMs: median(writeExtra),
          baseline: statusRow,
          extra: { 'load avg': load() },
        },
        {
          name: `data directory after the first turn (${usage.files.toLocaleString('en')} files)`,
          medianMs: usage.bytes,
          baseline: {
            name: `the repository's .git (${dotGit.files.toLocaleString('en')} files, index ${mib(index)})`,
            medianMs: dotGit.bytes,
          },
          unit: 'bytes',
          target: { text: '≤ 25% of .git + one index', met: usage.bytes <= limit },
        },
      ]
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  },
}
