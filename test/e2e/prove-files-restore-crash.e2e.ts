// kill -9 in the middle of a restore (docs/architecture.md §5, packages/files/src/restore-journal.ts):
// a real process restores thousands of files and is SIGKILLed (with its git) while it writes.
// The directory is then a mix of old and new files. The next FileState must put it back as it
// was before the restore (the log never recorded it), so restoring again works without force
// (no "another writer"), and the crash leaves no throwaway index in the store.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { SessionStore } from '@tangent/core'
import { FileState } from '@tangent/files'
import { describe, expect, it } from 'vitest'
import { proveSeed, proveSize, repoRoot, seededRandom, sleep, tempDir } from '../soak/lib.mjs'
import { scratchLeftovers } from '../soak/restore-kill-driver.mjs'

// 1,200 files in `npm test` (a write window kills land in), 3,000 in `npm run soak -- --only prove`.
const fileCount = proveSize(1200, 3000)
const names = Array.from({ length: fileCount }, (_, i) => `d${i % 30}/f${i}.txt`)
const before = (name: string) => `${name} before the restore\n`.repeat(4)
const target = (name: string) => `${name} at the turn restored to\n`.repeat(4)

// The child: one restore, as the runtime asks for it, in its own process group.
const childScript = `
import { FileState } from ${JSON.stringify(path.join(repoRoot, 'packages/files/dist/index.js'))}
const options = JSON.parse(process.argv[2])
const files = new FileState({ home: options.home })
await files.restore(options.restore)
process.stdout.write('restored\\n')
`

interface Setup {
  home: string
  cwd: string
  restore: {
    cwd: string
    events: unknown[]
    inheritedEventCount: number
    baseTree: string
    toSeq: number
  }
}

/** A project at the target content, then a turn that rewrote every file: restore that turn. */
async function setUp(root: string): Promise<Setup> {
  const home = path.join(root, 'home')
  const cwd = path.join(root, 'project')
  for (const name of names) {
    fs.mkdirSync(path.dirname(path.join(cwd, name)), { recursive: true })
    fs.writeFileSync(path.join(cwd, name), target(name))
  }
  const files = new FileState({ home })
  const baseTree = (await files.snapshot(cwd)).tree
  const session = new SessionStore().create(undefined, { meta: { cwd, baseTree } })
  const start = session.append('turn/start', {}).seq
  session.append('user/message', { content: [{ type: 'text', text: 'rewrite everything' }] })
  for (const name of names) fs.writeFileSync(path.join(cwd, name), before(name))
  session.append('snapshot/taken', await files.snapshot(cwd))
  session.append('turn/end', { reason: 'completed' })
  return {
    home,
    cwd,
    restore: {
      cwd,
      events: JSON.parse(JSON.stringify(session.events)),
      inheritedEventCount: session.inheritedEventCount,
      baseTree,
      toSeq: start,
    },
  }
}

/**
 * Counts the files holding the content before the restore, the target content, something else,
 * or gone. Right after a kill of the process alone its git child may still be rewriting files,
 * so a file can vanish between looking and reading: that counts as gone.
 */
function census(cwd: string) {
  const counts = { before: 0, target: 0, other: 0, missing: 0 }
  for (const name of names) {
    const content = readOrNull(path.join(cwd, name))
    if (content === null) counts.missing++
    else if (content === before(name)) counts.before++
    else if (content === target(name)) counts.target++
    else counts.other++
  }
  return counts
}

function readOrNull(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch {
    return null
  }
}

/** Starts the restore in a child and SIGKILLs its whole process group `delay` ms after it starts writing. */
async function restoreAndKill(
  setup: Setup,
  script: string,
  delay: number,
  wholeGroup: boolean,
): Promise<'killed' | 'finished'> {
  const child = spawn(process.execPath, [script, JSON.stringify(setup)], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  let finished = false
  void exited.then(() => {
    finished = true
  })
  // Git writes in path order: once the first path is rewritten, the restore is writing.
  const first = path.join(setup.cwd, [...names].sort()[0]!)
  const deadline = Date.now() + 60_000
  while (!finished && Date.now() < deadline) {
    if (readOrNull(first) !== before(path.relative(setup.cwd, first))) break
    await sleep(1)
  }
  if (!finished) {
    await sleep(delay)
    // The whole group: git dies with it, as in a power cut or a killed service. The process
    // alone (kill -9 PID): its git child goes on writing for a moment, orphaned.
    if (wholeGroup) process.kill(-child.pid!, 'SIGKILL')
    else child.kill('SIGKILL')
  }
  const exit = await exited
  if (exit.signal === 'SIGKILL') return 'killed'
  expect(exit.code, stderr).toBe(0)
  return 'finished'
}

describe('prove: kill -9 during a restore', () => {
  it('a restore killed while it writes is rolled back; restoring again works without force', async () => {
    const seed = proveSeed('files-restore-crash', 11)
    const random = seededRandom(seed)
    const root = tempDir('tangent-restore-crash-')
    const script = path.join(root, 'restore-child.mjs')
    fs.writeFileSync(script, childScript)
    let landedInside = 0
    try {
      // Four attempts at least: the whole group or the process alone, each then recovered at
      // start-up or restored again; more (up to 8) until enough kills landed mid-write.
      const enough = proveSize(1, 2)
      for (let attempt = 0; attempt < 8 && (landedInside < enough || attempt < 4); attempt++) {
        const started = Date.now()
        const setup = await setUp(path.join(root, `attempt-${attempt}`))
        const wholeGroup = attempt % 4 < 2
        const outcome = await restoreAndKill(setup, script, random.int(0, 30), wholeGroup)
        const found = census(setup.cwd)
        const mixed = outcome === 'killed' && found.target > 0 && found.target < fileCount
        if (mixed) landedInside++
        console.log(
          `[prove] attempt ${attempt}: ${outcome} (${wholeGroup ? 'process group' : 'process alone'}) after ${Date.now() - started} ms, ${JSON.stringify(found)}`,
        )

        // The next start: alternate between the start-up call and a plain restore again.
        const files = new FileState({ home: setup.home })
        if (attempt % 2 === 0) {
          const recovered = await files.recoverInterrupted()
          if (outcome === 'killed') {
            expect(recovered).toMatchObject([{ cwd: setup.cwd, action: 'rolled-back' }])
            expect(recovered[0]!.paths).toHaveLength(fileCount)
            // Rolled back: every file as it was before the restore.
            expect(census(setup.cwd)).toEqual({ before: fileCount, target: 0, other: 0, missing: 0 })
          } else expect(recovered).toEqual([])
          expect(scratchLeftovers(setup.home)).toEqual([])
        }
        if (outcome === 'finished') continue

        // No "another writer": the log has no restore, and the directory is where the log says.
        const again = await files.restore(setup.restore as Parameters<FileState['restore']>[0])
        expect(again.restored).toHaveLength(fileCount)
        expect(census(setup.cwd)).toEqual({ before: 0, target: fileCount, other: 0, missing: 0 })
        expect(fs.readdirSync(path.join(setup.home, 'snapshots', 'journal'))).toEqual([])
        expect(scratchLeftovers(setup.home)).toEqual([])
        fs.rmSync(path.join(root, `attempt-${attempt}`), { recursive: true, force: true })
      }
      expect(landedInside, 'kills that landed while files were being written').toBeGreaterThanOrEqual(1)
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  }, 240_000)
})

// The other side of the window: a restore killed after every file is written, in its commit
// hook (where the runtime appends files/restored), before the record is made. Its journal names
// the restore by id, and the next start asks whether a record names that id: none does (the
// log holds only an earlier restore with the same undo tree), so the files are rolled back.
const commitChild = `
import { FileState } from ${JSON.stringify(path.join(repoRoot, 'packages/files/dist/index.js'))}
const options = JSON.parse(process.argv[2])
const files = new FileState({ home: options.home })
await files.restore({
  ...options.restore,
  commit: async (result) => {
    process.stdout.write(JSON.stringify({ undoTree: result.undoTree, journalId: result.journalId }) + '\\n')
    await new Promise(() => {})
  },
})
`

describe('prove: kill -9 after a restore wrote its files, before its record', () => {
  it('is rolled back at the next start though a record of an earlier restore has its undo tree', async () => {
    const root = tempDir('tangent-restore-commit-crash-')
    try {
      const home = path.join(root, 'home')
      const cwd = path.join(root, 'project')
      const file = path.join(cwd, 'a.txt')
      fs.mkdirSync(cwd, { recursive: true })
      fs.writeFileSync(file, 'target\n')
      const files = new FileState({ home })
      const baseTree = (await files.snapshot(cwd)).tree
      const session = new SessionStore().create(undefined, { meta: { cwd, baseTree } })
      const start = session.append('turn/start', {}).seq
      session.append('user/message', { content: [{ type: 'text', text: 'rewrite' }] })
      fs.writeFileSync(file, 'before\n')
      session.append('snapshot/taken', await files.snapshot(cwd))
      session.append('turn/end', { reason: 'completed' })
      const script = path.join(root, 'commit-child.mjs')
      fs.writeFileSync(script, commitChild)
      const restore = {
        cwd,
        events: JSON.parse(JSON.stringify(session.events)),
        inheritedEventCount: 0,
        baseTree,
        toSeq: start,
      }
      const child = spawn(process.execPath, [script, JSON.stringify({ home, restore })], {
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      const exited = new Promise((resolve) => child.once('exit', resolve))
      const committing = await new Promise<{ undoTree: string; journalId?: string }>((resolve, reject) => {
        let out = ''
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString('utf8')
          if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!))
        })
        child.once('exit', () => reject(new Error(`the child ended before its commit: ${out}`)))
      })
      child.kill('SIGKILL')
      await exited
      // Killed in the commit hook: every file written, the journal still there, no record.
      expect(fs.readFileSync(file, 'utf8')).toBe('target\n')
      expect(committing.journalId).toMatch(/^[0-9a-f-]{36}$/)
      const journals = fs.readdirSync(path.join(home, 'snapshots', 'journal'))
      expect(journals).toHaveLength(1)
      const journal = JSON.parse(
        fs.readFileSync(path.join(home, 'snapshots', 'journal', journals[0]!), 'utf8'),
      ) as { id?: string; undoTree: string }
      expect(journal).toMatchObject({ id: committing.journalId, undoTree: committing.undoTree })

      // The log: an earlier restore from the same directory state (so the same undo tree), another id.
      const records = [{ undoTree: committing.undoTree, journalId: 'an-earlier-restore' }]
      const asked: unknown[] = []
      const reopened = new FileState({
        home,
        isRecorded: async (found) => {
          asked.push(found)
          return records.some((record) => record.journalId === found.id)
        },
      })
      const recovered = await reopened.recoverInterrupted()
      expect(asked).toMatchObject([{ id: committing.journalId, undoTree: committing.undoTree }])
      expect(recovered).toMatchObject([{ cwd: fs.realpathSync(cwd), action: 'rolled-back' }])
      expect(fs.readFileSync(file, 'utf8')).toBe('before\n')
      expect(fs.readdirSync(path.join(home, 'snapshots', 'journal'))).toEqual([])
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  }, 60_000)
})
