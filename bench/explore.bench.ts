// Explore (issue 13), the runtime in this process: three branches of a slowed demo model against
// one branch (they run in parallel), and on a 10,000-file git project the making of three
// worktree branches and the keep of one, next to the same done by hand with git in the same run.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Runtime } from '@tangent/runtime'
import { generateProject, git, projectFile, projectFileCount } from './git-project.js'
import { type BenchRow, type BenchSuite, median } from './table.js'

/** Demo model delay per streamed delta (4 characters) in the parallelism measure. */
const delayMs = 20
const iterations = 3

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint()
  const value = await fn()
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value }
}

function openRuntime(root: string, name: string, cwd: string, demoDelayMs: number): Promise<Runtime> {
  return Runtime.open({
    home: path.join(root, `home-${name}`),
    env: {},
    defaultModel: 'demo:scripted',
    demoDelayMs,
    startFolder: cwd,
    sandbox: 'off',
    report: (error) => console.error('bench explore:', error),
  })
}

/** A session in `cwd` with one completed turn. */
async function sessionWithTurn(runtime: Runtime, cwd: string): Promise<string> {
  const session = await runtime.createSession({ cwd, title: 'bench' })
  await runtime.prompt({ sessionId: session.id, text: 'hello' })
  return session.id
}

function loadAverage(): string {
  return os.loadavg()[0]!.toFixed(1)
}

/** Explore with 1 and with 3 branches (concurrency 3) until every branch turn ended. */
async function parallelRows(root: string): Promise<BenchRow[]> {
  const cwd = path.join(root, 'parallel-work')
  fs.mkdirSync(cwd, { recursive: true })
  fs.writeFileSync(path.join(cwd, 'readme.txt'), 'a small project\n')
  const runtime = await openRuntime(root, 'parallel', cwd, delayMs)
  try {
    const sessionId = await sessionWithTurn(runtime, cwd)
    // The demo model quotes up to 200 characters of the message: a reply of ~230 characters.
    const prompt = `Compare three ways to cache the session catalog. ${'Consider memory, disk and invalidation. '.repeat(4)}`
    const runWith = async (branches: number, files: 'worktree' | 'shared') =>
      (
        await timed(async () => {
          await runtime.explore({
            sessionId,
            branches: Array.from({ length: branches }, () => ({ prompt })),
            files,
            concurrency: 3,
          })
          await runtime.settled()
        })
      ).ms
    const rows: BenchRow[] = []
    // Worktree (the default) includes making each branch's directory; shared isolates the turns.
    for (const files of ['worktree', 'shared'] as const) {
      const one: number[] = []
      const three: number[] = []
      await runWith(1, files) // warm-up
      const load: string[] = []
      for (let i = 0; i < iterations; i++) {
        one.push(await runWith(1, files))
        three.push(await runWith(3, files))
        load.push(loadAverage())
      }
      const ratio = median(three) / median(one)
      rows.push({
        name: `explore, 3 branches, files ${files} (demo model, ${delayMs} ms per 4-character delta, ~230-character reply), until settled`,
        medianMs: median(three),
        baseline: { name: `explore, 1 branch, files ${files} (same prompt)`, medianMs: median(one) },
        extra: { runs: three.length, 'load avg': load.join(' / ') },
        target: { text: '3 branches ≤ 1.3× one branch', met: ratio <= 1.3 },
      })
    }
    return rows
  } finally {
    await runtime.close()
  }
}

/** The few files a kept branch changes in round `round` (different ones each round: no conflict). */
function changedFiles(round: number): string[] {
  return [0, 1, 2].map((k) => projectFile(round * 3 + k))
}

async function worktreeRows(root: string): Promise<BenchRow[]> {
  const project = await generateProject(root)
  // By hand in a clone of its own, so the hand-made commits and merges never touch the session's checkout.
  const hand = path.join(root, 'hand')
  await git(root, 'clone', '--quiet', project, hand)
  const runtime = await openRuntime(root, 'worktrees', project, 0)
  try {
    const sessionId = await sessionWithTurn(runtime, project)
    const explore = { made: [] as number[], keep: [] as number[], keepAll: [] as number[] }
    const byHand = { made: [] as number[], keep: [] as number[], keepAll: [] as number[] }
    const load: string[] = []
    for (let round = 0; round < iterations; round++) {
      const files = changedFiles(round)
      // Three branches: one changes a few files, two only talk. Timed until they exist (explore answers).
      const made = await timed(() =>
        runtime.explore({
          sessionId,
          files: 'worktree',
          branches: [
            { prompt: files.map((file) => `write ${file}: changed in round ${round}`).join('\n') },
            { prompt: 'just talking' },
            { prompt: 'just talking' },
          ],
        }),
      )
      explore.made.push(made.ms)
      await runtime.settled()
      const [kept] = made.value.sessions
      // Every other round keeps without touching the siblings, the rest archives them and removes their worktrees.
      const archiveOthers = round % 2 === 1
      const keep = await timed(() => runtime.keep({ sessionId: kept!.id, archiveOthers }))
      if (keep.value.files.applied.length !== files.length)
        throw new Error(`keep applied ${keep.value.files.applied.join(', ')}, expected ${files.join(', ')}`)
      ;(archiveOthers ? explore.keepAll : explore.keep).push(keep.ms)

      const trees = [0, 1, 2].map((k) => path.join(root, `hand-wt-${round}-${k}`))
      byHand.made.push(
        (
          await timed(async () => {
            for (const tree of trees) await git(hand, 'worktree', 'add', '--quiet', '--detach', tree, 'HEAD')
          })
        ).ms,
      )
      for (const file of files) fs.writeFileSync(path.join(trees[0]!, file), `changed in round ${round}\n`)
      const merged = await timed(async () => {
        await git(trees[0]!, 'commit', '--quiet', '-am', `round ${round}`)
        const commit = (await git(trees[0]!, 'rev-parse', 'HEAD')).trim()
        await git(hand, 'merge', '--quiet', '--no-edit', commit)
        if (archiveOthers) {
          for (const tree of trees.slice(1)) await git(hand, 'worktree', 'remove', tree)
        }
      })
      ;(archiveOthers ? byHand.keepAll : byHand.keep).push(merged.ms)
      load.push(loadAverage())
    }
    const loadNote = { 'load avg': load.join(' / ') }
    return [
      {
        name: `explore: 3 worktree branches of a ${projectFileCount.toLocaleString('en')}-file repo (until they exist and their turns started)`,
        medianMs: median(explore.made),
        baseline: { name: '3 × git worktree add', medianMs: median(byHand.made) },
        extra: { runs: explore.made.length, ...loadNote },
      },
      {
        name: 'keep one branch (3 files merged into the parent, siblings left)',
        medianMs: median(explore.keep),
        baseline: { name: 'git commit -am in the worktree + git merge', medianMs: median(byHand.keep) },
        extra: { runs: explore.keep.length, ...loadNote },
      },
      {
        name: 'keep one branch, siblings archived and their 2 worktrees removed',
        medianMs: median(explore.keepAll),
        baseline: { name: 'commit + merge + 2 × git worktree remove', medianMs: median(byHand.keepAll) },
        extra: { runs: explore.keepAll.length, ...loadNote },
      },
    ]
  } finally {
    await runtime.close()
  }
}

export const suite: BenchSuite = {
  title: 'Explore (issue 13): parallel branches, worktree branches and keep on a 10,000-file repository',
  async run() {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-bench-explore-'))
    try {
      return [...(await parallelRows(root)), ...(await worktreeRows(root))]
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  },
}
