// `tangent export` and `tangent import` with the built CLI (docs/architecture.md, "Moving in and
// out"): a fork exported as a bundle with its parent goes into another TANGENT_HOME with its ids
// and lineage, shows in `tangent sessions` there, continues with the demo model, and importing it
// again creates nothing; Markdown has the texts; hostile or foreign files are refused, nothing written.

import type { ChildProcess } from 'node:child_process'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { connectHostApi } from '@tangent/host'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  cliMain,
  createSandbox,
  removeSandbox,
  type Sandbox,
  startProcess,
  stopProcess,
  tangent,
  tangentJson,
  tangentJsonChild,
} from './cli-harness.js'

interface RunOutput {
  sessionId: string
  reason: string
}
interface Imported {
  sessions: { id: string; source: string; parentSession?: string; status: string }[]
}

describe('tangent export / import', () => {
  let from: Sandbox
  let to: Sandbox
  let parent: string
  let child: string
  let bundleFile: string
  beforeAll(async () => {
    from = createSandbox()
    to = createSandbox()
    parent = (await tangentJsonChild<RunOutput>(from, ['run', 'hello there'])).sessionId
    await tangentJsonChild<RunOutput>(from, ['run', '--session', parent, 'second on the parent'])
    const first = await tangentJson<{ events: { seq: number; type: string }[] }>(from, ['show', parent])
    const firstEnd = first.events.find((event) => event.type === 'turn/end')!.seq
    child = (
      await tangentJsonChild<{ session: { id: string } }>(from, [
        'fork',
        parent,
        '--at',
        String(firstEnd),
        '--title',
        'Branch A',
      ])
    ).session.id
    // Each as its own process, ended before the next command starts (CI once saw the export after
    // these fail with code 1 when they ran inside the test process).
    await tangentJsonChild<RunOutput>(from, ['run', '--session', child, 'branch words'])
    bundleFile = path.join(from.cwd, 'branch.jsonl')
  }, 60_000)
  afterAll(() => {
    removeSandbox(from)
    removeSandbox(to)
  })

  it('export -o writes the bundle; stdout carries the same sessions and events', async () => {
    const written = await tangent(from, ['export', child.slice(0, 8), '-o', 'branch.jsonl'])
    expect(written.code, written.stderr).toBe(0)
    expect(written.stdout).toBe('')
    const file = fs.readFileSync(bundleFile, 'utf8').trim().split('\n')
    expect(JSON.parse(file[0]!)).toMatchObject({ format: 'tangent-bundle', version: 1, sessionId: child })
    expect(fs.statSync(bundleFile).mode & 0o777).toBe(0o600)
    const printed = await tangent(from, ['export', child])
    expect(printed.code).toBe(0)
    const lines = printed.stdout.trim().split('\n')
    expect(lines.slice(1)).toEqual(file.slice(1))
    // The parent travels through the fork point only: its second turn is not the branch's.
    expect(printed.stdout).not.toContain('second on the parent')
    expect(printed.stdout).toContain('branch words')
  })

  it('import into another TANGENT_HOME keeps ids and lineage; `sessions` shows the fork; again creates nothing', async () => {
    const imported = await tangentJsonChild<Imported>(to, ['import', bundleFile])
    expect(imported).toEqual({
      sessions: [
        expect.objectContaining({ id: parent, source: 'tangent', status: 'created' }),
        expect.objectContaining({ id: child, source: 'tangent', parentSession: parent, status: 'created' }),
      ],
    })
    expect(imported.sessions[0]).not.toHaveProperty('parentSession')
    const tree = await tangent(to, ['sessions'])
    expect(tree.code).toBe(0)
    const lines = tree.stdout.trimEnd().split('\n')
    const parentLine = lines.findIndex((line) => line.startsWith(parent))
    const childLine = lines.findIndex((line) => line.includes(child))
    expect(parentLine).toBeGreaterThanOrEqual(0)
    expect(childLine).toBeGreaterThan(parentLine)
    expect(lines[childLine]).toMatch(new RegExp(`^[├└]─ ${child}  Branch A  fork @ seq \\d+`))

    const again = await tangentJsonChild<Imported>(to, ['import', bundleFile])
    expect(again.sessions.map((session) => session.status)).toEqual(['existing', 'existing'])
    const plain = await tangent(to, ['import', bundleFile])
    expect(plain.stdout).toContain(`Already here ${child}`)
  })

  it('the imported fork continues with the demo model', async () => {
    const result = await tangent(to, ['run', '--session', child, 'go on'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('you said "go on"')
    const shown = await tangent(to, ['show', child])
    expect(shown.stdout).toContain('hello there')
    expect(shown.stdout).toContain('branch words')
  })

  it('export --format md has the texts; an unknown format or a misplaced --tree is a usage error', async () => {
    const markdown = await tangent(from, ['export', child, '--format', 'md'])
    expect(markdown.code).toBe(0)
    expect(markdown.stdout).toMatch(/^# Branch A/)
    expect(markdown.stdout).toContain('## User\n\nhello there')
    expect(markdown.stdout).toContain('branch words')
    const unknown = await tangent(from, ['export', child, '--format', 'docx'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('Unknown --format docx: use jsonl, md, html, claude, codex, pi.')
    const tree = await tangent(from, ['export', child, '--tree'])
    expect(tree.code).toBe(2)
    expect(tree.stderr).toContain('--tree goes with --format html.')
  })

  it('imports a Claude Code session with a rewind branch as a session and its fork; again creates nothing', async () => {
    const fresh = createSandbox()
    try {
      const claude = path.join(
        path.dirname(fileURLToPath(import.meta.url)),
        '../fixtures/imports/claude/tools-branch-compact.jsonl',
      )
      // It worked in a folder of the machine that made it: here it needs one (--cwd).
      const elsewhere = await tangent(fresh, ['import', claude])
      expect(elsewhere.code).toBe(1)
      expect(elsewhere.stderr).toMatch(/error\[folder-not-found\]: .*--cwd DIR/)
      const imported = await tangentJson<{
        sessions: { id: string; source: string; parentSession?: string; status: string }[]
      }>(fresh, ['import', '--cwd', fresh.cwd, '--json', claude])
      expect(imported.sessions.map((session) => [session.source, session.status])).toEqual([
        ['claude', 'created'],
        ['claude', 'created'],
      ])
      expect(imported.sessions[1]!.parentSession).toBe(imported.sessions[0]!.id)
      const again = await tangentJson<{ sessions: { status: string }[] }>(fresh, [
        'import',
        '--cwd',
        fresh.cwd,
        '--json',
        claude,
      ])
      expect(again.sessions.map((session) => session.status)).toEqual(['existing', 'existing'])
      // The fork continues offline.
      const branch = imported.sessions[1]!.id
      const turn = await tangent(fresh, ['run', '--session', branch, '--model', 'demo:scripted', 'and now?'])
      expect(turn.stdout).toContain('you said "and now?"')
    } finally {
      removeSandbox(fresh)
    }
  })

  it("import --from claude takes this folder's sessions from CLAUDE_CONFIG_DIR; a bad file is a warning, the rest goes in", async () => {
    const fresh = createSandbox()
    try {
      const config = path.join(fresh.home, '..', 'claude-config')
      const folder = path.join(config, 'projects', fs.realpathSync(fresh.cwd).replace(/[^a-zA-Z0-9]/g, '-'))
      fs.mkdirSync(folder, { recursive: true })
      const fixture = path.join(
        path.dirname(fileURLToPath(import.meta.url)),
        '../fixtures/imports/claude/tools-branch-compact.jsonl',
      )
      fs.writeFileSync(
        path.join(folder, '11111111-1111-4111-8111-111111111111.jsonl'),
        fs
          .readFileSync(fixture, 'utf8')
          .replaceAll('/tmp/tangent-claude-fixtures-2.1.332/project', fs.realpathSync(fresh.cwd)),
      )
      fs.writeFileSync(path.join(folder, 'broken.jsonl'), 'not json\n')
      const withConfig = { ...fresh, env: { ...fresh.env, CLAUDE_CONFIG_DIR: config } }
      const imported = await tangent(withConfig, ['import', '--from', 'claude'])
      expect(imported.code).toBe(0)
      expect(imported.stdout.match(/^Imported /gm)).toHaveLength(2)
      expect(imported.stderr).toMatch(/warning: .*broken\.jsonl: .*not a file Tangent knows how to import/)
      const again = await tangent(withConfig, ['import', '--from', 'claude'])
      expect(again.stdout.match(/^Already here /gm)).toHaveLength(2)
      // --cwd names the folder: from elsewhere, the same sessions.
      const named = await tangent(withConfig, ['import', '--from', 'claude', '--cwd', fresh.cwd], {
        cwd: os.tmpdir(),
      })
      expect(named.stdout.match(/^Already here /gm)).toHaveLength(2)
      const misplaced = await tangent(withConfig, ['import', '--from', 'claude', '--all', '--cwd', '.'])
      expect(misplaced.code).toBe(2)
    } finally {
      removeSandbox(fresh)
    }
  })

  it('a claude export is written again as long as the file holds only its lines; turns Claude Code added are never replaced without --force', async () => {
    const file = path.join(from.cwd, 'claude-export.jsonl')
    expect((await tangent(from, ['export', child, '--format', 'claude', '-o', file])).code).toBe(0)
    const written = fs.readFileSync(file, 'utf8')
    // The same session again: the same lines, written again.
    expect((await tangent(from, ['export', child, '--format', 'claude', '-o', file])).code).toBe(0)
    expect(fs.readFileSync(file, 'utf8')).toBe(written)
    // Continued in Claude Code: it appended a line. Exporting again would delete it.
    const theirs = `${written}${JSON.stringify({ type: 'user', uuid: 'from-claude', message: { role: 'user', content: 'typed in claude' } })}\n`
    fs.writeFileSync(file, theirs)
    const refused = await tangent(from, ['export', child, '--format', 'claude', '-o', file])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/error\[export-conflict\]: .*holds 1 line this export does not/)
    expect(fs.readFileSync(file, 'utf8')).toBe(theirs)
    // An unrelated file of the user's is not replaced either.
    const notes = path.join(from.cwd, 'notes.txt')
    fs.writeFileSync(notes, 'my notes\n')
    expect((await tangent(from, ['export', child, '--format', 'claude', '-o', notes])).code).toBe(1)
    expect(fs.readFileSync(notes, 'utf8')).toBe('my notes\n')
    // Asked for: replaced.
    expect((await tangent(from, ['export', child, '--format', 'claude', '-o', file, '--force'])).code).toBe(0)
    expect(fs.readFileSync(file, 'utf8')).toBe(written)
  })

  it('refuses unknown and hostile files, naming the line; nothing is written; a long first line is read whole', async () => {
    const fresh = createSandbox()
    try {
      const unknown = path.join(fresh.cwd, 'notes.jsonl')
      fs.writeFileSync(unknown, '{"hello":"world"}\n')
      const foreign = await tangent(fresh, ['import', unknown])
      expect(foreign.code).toBe(1)
      expect(foreign.stderr).toMatch(
        /error\[import-unsupported\]: notes.jsonl: not a file Tangent knows how to import/,
      )
      // Every file is recognised before any is imported: a good file before it is not imported either.
      const claude = path.join(
        path.dirname(fileURLToPath(import.meta.url)),
        '../fixtures/imports/claude/tools-branch-compact.jsonl',
      )
      // A FIFO would block a reader until someone writes to it: refused at once.
      const fifo = path.join(fresh.cwd, 'fifo.jsonl')
      execFileSync('mkfifo', [fifo])
      const piped = await tangent(fresh, ['import', fifo])
      expect(piped.code).toBe(1)
      expect(piped.stderr).toMatch(/error\[invalid-path\]: .*fifo.jsonl is not a regular file/)
      const both = await tangent(fresh, ['import', '--cwd', fresh.cwd, claude, unknown])
      expect(both.code).toBe(1)
      expect(both.stderr).toMatch(/error\[import-unsupported\]: notes.jsonl/)
      expect(await tangentJson<unknown[]>(fresh, ['sessions'])).toEqual([])

      const lines = fs.readFileSync(bundleFile, 'utf8').trim().split('\n')
      lines[lines.length - 1] = '{"kind":"event","seq":'
      const broken = path.join(fresh.cwd, 'broken.jsonl')
      fs.writeFileSync(broken, lines.join('\n'))
      const refused = await tangent(fresh, ['import', broken])
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(
        `error[invalid-bundle]: broken.jsonl: Bundle line ${lines.length}: not JSON`,
      )
      expect(await tangentJson<unknown[]>(fresh, ['sessions'])).toEqual([])
      // A first line longer than one read (64 KiB) is recognised whole.
      const [first, ...rest] = fs.readFileSync(claude, 'utf8').split('\n')
      const long = path.join(fresh.cwd, 'long-first-line.jsonl')
      const record = JSON.parse(first!) as Record<string, unknown>
      fs.writeFileSync(
        long,
        [JSON.stringify({ ...record, content: 'x'.repeat(200_000) }), ...rest].join('\n'),
      )
      const longImport = await tangentJson<{ sessions: { status: string }[] }>(fresh, [
        'import',
        '--cwd',
        fresh.cwd,
        '--json',
        long,
      ])
      expect(longImport.sessions.map((session) => session.status)).toEqual(['created', 'created'])
    } finally {
      removeSandbox(fresh)
    }
  })
})

describe('tangent export / import through a running Host', () => {
  let sandbox: Sandbox
  let serve: ChildProcess
  let listening: { url: string; token: string }
  beforeAll(async () => {
    sandbox = createSandbox()
    const started = await startProcess(process.execPath, [cliMain, 'serve', '--port', '0', '--json'], {
      cwd: sandbox.cwd,
      env: sandbox.env,
      ready: /^\{.*"token"/,
    })
    serve = started.child
    listening = JSON.parse(started.line) as { url: string; token: string }
  }, 60_000)
  afterAll(async () => {
    if (serve) await stopProcess(serve)
    removeSandbox(sandbox)
  })

  it('exports and imports through the Host; a bundle past one message goes up in pieces', async () => {
    const made = await tangentJsonChild<RunOutput>(sandbox, ['run', 'through the host'])
    const exported = await tangent(sandbox, ['export', made.sessionId, '-o', 'one.jsonl'])
    expect(exported.code).toBe(0)
    const again = await tangentJsonChild<Imported>(sandbox, ['import', 'one.jsonl'])
    expect(again.sessions).toEqual([expect.objectContaining({ id: made.sessionId, status: 'existing' })])

    // A session of 1.2 MiB of prompts (an argument holds at most 128 KiB): the export pages; the import is uploaded in pieces (session.importChunk).
    const big = await tangentJsonChild<RunOutput>(sandbox, ['run', 'x'.repeat(100 * 1024)])
    // The rest of the 1.2 MiB straight to the Host the CLI goes through (a CLI process each cost ~1 s).
    const api = await connectHostApi(listening)
    try {
      for (let i = 0; i < 11; i++) {
        const more = await api.call('session.prompt', {
          sessionId: big.sessionId,
          text: 'y'.repeat(100 * 1024),
        })
        expect(more.reason).toBe('completed')
      }
    } finally {
      await api.close()
    }
    const large = await tangent(sandbox, ['export', big.sessionId, '-o', 'big.jsonl'])
    expect(large.code).toBe(0)
    expect(fs.statSync(path.join(sandbox.cwd, 'big.jsonl')).size).toBeGreaterThan(1024 * 1024)
    const events = (await tangentJsonChild<{ events: unknown[] }>(sandbox, ['show', big.sessionId])).events
      .length
    expect((await tangent(sandbox, ['delete', big.sessionId])).code).toBe(0)
    const back = await tangentJsonChild<Imported>(sandbox, ['import', 'big.jsonl'])
    expect(back.sessions).toEqual([expect.objectContaining({ id: big.sessionId, status: 'created', events })])
  }, 120_000)
})
