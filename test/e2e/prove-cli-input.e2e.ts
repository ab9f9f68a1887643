// Bad input to the CLI (issue 6): each bad command line gets one clear line on stderr
// (`error[code]: …`, no stack trace), nothing on stdout, and exit code 2 (bad usage) or 1
// (failure). In-process through the built runCli, plus the real executable for each exit code.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { runCli } from 'tangent'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliMain, hostEnv, proveSeed, seededRandom, tempDir } from '../soak/lib.mjs'

let root: string
let home: string
let cwd: string
let sessionId: string

function sink() {
  let text = ''
  return {
    write(chunk: string) {
      text += chunk
      return true
    },
    get text() {
      return text
    },
  }
}

async function tangent(argv: string[], options: { home?: string } = {}) {
  const stdout = sink()
  const stderr = sink()
  const code = await runCli(argv, {
    env: { NO_COLOR: '1' },
    cwd,
    home: options.home ?? home,
    stdout,
    stderr,
    stdin: process.stdin,
  })
  return { code, stdout: stdout.text, stderr: stderr.text }
}

beforeAll(async () => {
  root = tempDir('tangent-cli-input-')
  home = path.join(root, 'home')
  cwd = path.join(root, 'work')
  fs.mkdirSync(cwd)
  const made = await tangent(['run', '--json', 'hello'])
  expect(made.code).toBe(0)
  sessionId = (JSON.parse(made.stdout) as { sessionId: string }).sessionId
}, 60_000)

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true })
})

function expectOneLineError(
  result: { code: number; stdout: string; stderr: string },
  code: 1 | 2,
  what: string,
) {
  expect(result.code, `${what}: exit code (stderr: ${result.stderr})`).toBe(code)
  expect(result.stdout, `${what}: stdout`).toBe('')
  expect(result.stderr, `${what}: one line`).toMatch(/^error\[[a-z-]+\]: [^\n]+\n$/)
  expect(result.stderr.length, `${what}: bounded`).toBeLessThan(400)
  expect(result.stderr).not.toMatch(/\n\s+at /)
}

describe('prove: bad input to the CLI', { timeout: 120_000 }, () => {
  it('bad usage: one line, exit 2', async () => {
    const cases: string[][] = [
      ['nope'],
      ['--nope'],
      ['show'],
      ['show', sessionId, 'extra'],
      ['fork', sessionId, '--at', 'abc'],
      ['fork', sessionId, '--at', '-1'],
      ['fork', sessionId, '--at', '1.5'],
      ['fork', sessionId, '--files', 'bogus'],
      ['archive'],
      ['serve', '--port', '99999'],
      ['serve', '--port', 'x'],
      ['run'],
      ['diff', sessionId],
      ['restore', sessionId, '--to', 'x'],
      ['sessions', '--bogus'],
    ]
    for (const argv of cases) expectOneLineError(await tangent(argv), 2, argv.join(' '))
  })

  it('an empty prompt is bad usage, like the Host refuses an empty session.prompt text', async () => {
    const before = fs.readdirSync(path.join(home, 'sessions')).length
    expectOneLineError(await tangent(['run', '']), 2, 'run ""')
    expect(fs.readdirSync(path.join(home, 'sessions')).length).toBe(before)
  })

  it('bad ids, unknown sessions, unknown models, missing directories: one line, exit 1, nothing written', async () => {
    const cases: string[][] = [
      ['show', '../x'],
      ['show', 'a\u0000b'],
      ['show', '会话'],
      ['show', 'x'.repeat(200)],
      ['show', 'ghost1'],
      ['fork', 'ghost'],
      ['fork', '../../etc/passwd'],
      ['delete', 'ghost'],
      ['archive', 'ghost'],
      ['diff', sessionId, 'ghost'],
      ['snapshots', 'ghost'],
      ['run', '--model', 'nope:x', 'hi'],
      ['run', '--model', 'openai:gpt-4.1', 'hi'],
      ['run', '--session', '../../x', 'hi'],
      ['run', '--session', 'ghost', 'hi'],
      ['run', '--cwd', path.join(root, 'missing'), 'hi'],
    ]
    const before = fs.readdirSync(path.join(home, 'sessions')).sort()
    for (const argv of cases) expectOneLineError(await tangent(argv), 1, argv.join(' '))
    expect(fs.readdirSync(path.join(home, 'sessions')).sort()).toEqual(before)
  })

  it('300 seeded random command lines: exit 0, or one line with a stable code and exit 1/2, never internal', async () => {
    const seed = proveSeed('cli-input', 2026)
    const random = seededRandom(seed)
    const commands = [
      'show',
      'fork',
      'archive',
      'unarchive',
      'delete',
      'sessions',
      'diff',
      'snapshots',
      'restore',
      'models',
    ]
    const junk = () =>
      random.pick([
        sessionId,
        'ghost',
        '../x',
        '',
        '-',
        '--',
        '-1',
        '1e9',
        'NaN',
        '会话',
        'a\u0000b',
        '--at',
        '--before',
        '--files',
        'worktree',
        '--json',
        '--to',
        '--force',
        '--all',
        '--title',
        'x'.repeat(random.int(1, 300)),
        String(random.int(-5, 50)),
      ])
    const before = fs.readdirSync(path.join(home, 'sessions')).filter((n) => n.endsWith('.jsonl')).length
    const problems: string[] = []
    for (let i = 0; i < 300; i++) {
      const argv = [random.pick(commands), ...Array.from({ length: random.int(0, 4) }, junk)]
      // Never delete or fork the one real session: only the shapes of bad input are under test.
      if ((argv[0] === 'delete' || argv[0] === 'fork' || argv[0] === 'restore') && argv.includes(sessionId))
        continue
      const result = await tangent(argv)
      const what = JSON.stringify(argv).slice(0, 120)
      if (result.code === 0) continue
      if (result.code !== 1 && result.code !== 2) problems.push(`${what}: exit ${result.code}`)
      else if (!/^error\[[a-z-]+\]: [^\n]+\n$/.test(result.stderr))
        problems.push(`${what}: stderr ${JSON.stringify(result.stderr).slice(0, 200)}`)
      else if (result.stderr.startsWith('error[internal]')) problems.push(`${what}: ${result.stderr.trim()}`)
    }
    expect(problems).toEqual([])
    expect(fs.readdirSync(path.join(home, 'sessions')).filter((n) => n.endsWith('.jsonl')).length).toBe(
      before,
    )
  })

  it('a data dir that is a file: one line, exit 1', async () => {
    const file = path.join(root, 'not-a-dir')
    fs.writeFileSync(file, 'x')
    expectOneLineError(await tangent(['sessions'], { home: file }), 1, 'TANGENT_HOME is a file')
  })

  it.each([
    ['the shell names it (PWD)', ''],
    ['no PWD either (the name comes from /proc)', 'unset PWD && '],
  ])(
    'run from a folder removed under the shell, %s: reads work, a run says the folder is gone',
    (_, unset) => {
      // The shell enters a folder, removes it and starts tangent there: its process.cwd() fails.
      const inRemovedFolder = (argv: string[]) =>
        spawnSync(
          '/bin/sh',
          [
            '-c',
            `mkdir gone && cd gone && rmdir ../gone && ${unset}exec "$@"`,
            'sh',
            process.execPath,
            cliMain,
            ...argv,
          ],
          { cwd: root, env: { ...hostEnv(home), PWD: path.join(root, 'gone') }, encoding: 'utf8' },
        )
      const shown = inRemovedFolder(['show', sessionId])
      expect(shown.stderr).toBe('')
      expect(shown.status).toBe(0)
      expect(shown.stdout).toContain(sessionId)
      const listed = inRemovedFolder(['sessions', '--all', '--json'])
      expect(listed.status, listed.stderr).toBe(0)
      expect(JSON.parse(listed.stdout).map((session: { id: string }) => session.id)).toContain(sessionId)
      // Work that does not start in the folder runs as from anywhere: the demo makes its own.
      const demo = inRemovedFolder(['demo'])
      expect(demo.status, demo.stderr).toBe(0)
      for (const command of [['run', 'hello'], ['chat']]) {
        const ran = inRemovedFolder(command)
        expect(ran.status).toBe(1)
        expect(ran.stdout).toBe('')
        // One line that names the folder.
        const folder = path.join(root, 'gone').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        expect(ran.stderr).toMatch(new RegExp(`^error\\[[a-z-]+\\]: [^\\n]*${folder}[^\\n]*\\n$`))
      }
      expect(fs.existsSync(path.join(root, 'gone'))).toBe(false)
    },
  )

  it('the real executable: exit 2 for bad usage, 1 for a failure, one line each', () => {
    for (const [argv, code] of [
      [['fork', sessionId, '--at', 'abc'], 2],
      [['show', 'ghost'], 1],
    ] as const) {
      const result = spawnSync(process.execPath, [cliMain, ...argv], {
        cwd,
        env: hostEnv(home),
        encoding: 'utf8',
      })
      expect(result.status).toBe(code)
      expect(result.stderr).toMatch(/^error\[[a-z-]+\]: [^\n]+\n$/)
    }
  })
})
