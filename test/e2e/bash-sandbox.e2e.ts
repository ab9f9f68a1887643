// The bash sandbox through the whole stack (docs/architecture.md §12.2): the demo model's `run:`
// in a real session, the tool result the model reads, a worktree fork that can still commit,
// `tangent doctor`/`models`, and TANGENT_SANDBOX=off. Real bubblewrap, no mocks; where bwrap is
// installed or CI runs, a sandbox that is silently off fails the first test.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createSandbox,
  removeSandbox,
  type Sandbox,
  tangent,
  tangentJson,
  tangentJsonChild,
} from './cli-harness.js'

const bwrapOnPath = (process.env.PATH ?? '')
  .split(path.delimiter)
  .some((directory) => directory !== '' && fs.existsSync(path.join(directory, 'bwrap')))
const sandboxExpected = process.env.CI !== undefined || (process.platform === 'linux' && bwrapOnPath)

interface ToolResult {
  type: string
  data: { output?: string; isError?: boolean }
}

let project: Sandbox
beforeAll(() => {
  project = createSandbox()
})
afterAll(() => removeSandbox(project))

function json<T>(args: string[], env: Record<string, string> = {}): Promise<T> {
  return tangentJson<T>({ ...project, env: { ...project.env, ...env } }, args)
}

/**
 * Runs `run: <command>` with the demo model in a `tangent` process of its own (its environment,
 * and its cwd the project's, as a user's shell) and answers the bash tool's result.
 */
async function runCommandInChild(command: string, env: Record<string, string> = {}) {
  const child = { ...project, env: { ...project.env, ...env } }
  const run = await tangentJsonChild<{ sessionId: string }>(child, ['run', `run: ${command}`])
  const { events } = await json<{ events: ToolResult[] }>(['show', run.sessionId])
  return events.filter((event) => event.type === 'tool/result').at(-1)?.data
}

/** Runs `run: <command>` with the demo model and answers the bash tool's result. */
async function runCommand(command: string, options: { session?: string; env?: Record<string, string> } = {}) {
  const run = await json<{ sessionId: string }>(
    ['run', ...(options.session ? ['--session', options.session] : []), `run: ${command}`],
    options.env,
  )
  const { events } = await json<{ events: ToolResult[] }>(['show', run.sessionId])
  const results = events.filter((event) => event.type === 'tool/result')
  return { sessionId: run.sessionId, result: results.at(-1)?.data }
}

describe('tangent doctor and models', () => {
  it('say that bash is sandboxed (and it must be, where bubblewrap is installed)', async () => {
    const doctor = await tangent(project, ['doctor', '--json'])
    expect(doctor.code).toBe(0)
    const report = JSON.parse(doctor.stdout) as { node: string; sandbox: { bash: string; kind?: string } }
    expect(report.node).toBe(process.version)
    if (sandboxExpected)
      expect(report.sandbox).toEqual({ bash: 'sandboxed', mode: 'auto', kind: 'bubblewrap' })
    const text = await tangent(project, ['doctor'])
    expect(text.stdout).toMatch(/^Node {6}v\d+/m)
    const models = await tangent(project, ['models'])
    expect(models.stdout).toMatch(/^✓ demo:scripted$/m)
    if (sandboxExpected) expect(models.stdout).toMatch(/^✓ bash: sandboxed \(bubblewrap\)$/m)
  })

  it('say why not when TANGENT_SANDBOX=off', async () => {
    const doctor = await tangent({ ...project, env: { ...project.env, TANGENT_SANDBOX: 'off' } }, [
      'doctor',
      '--json',
    ])
    expect(JSON.parse(doctor.stdout).sandbox).toEqual({
      bash: 'unsandboxed',
      mode: 'off',
      reason: 'the sandbox is turned off (TANGENT_SANDBOX=off)',
    })
  })
})

describe.runIf(sandboxExpected)('the demo model running bash in a session', () => {
  const outside = () => path.join(path.dirname(project.cwd), 'outside.txt')

  it('cannot write outside the session directory, and the tool result says why', async () => {
    const { result } = await runCommand('echo hi > ../outside.txt')
    expect(fs.existsSync(outside())).toBe(false)
    expect(result?.isError).toBe(true)
    expect(result?.output).toMatch(/outside\.txt: Read-only file system/)
    expect(result?.output).toContain(
      `[sandbox: commands may write only inside ${fs.realpathSync(project.cwd)}`,
    )
  })

  it("still works on the session's own files", async () => {
    const { result } = await runCommand('echo hi > inside.txt && cat inside.txt')
    expect(result).toEqual({
      callId: expect.any(String),
      toolName: 'bash',
      output: 'hi\n[exit code 0]',
      isError: false,
    })
    expect(fs.readFileSync(path.join(project.cwd, 'inside.txt'), 'utf8')).toBe('hi\n')
  })

  it("gets no Host token or provider key from Tangent's environment, unless TANGENT_BASH_PASS_ENV names it", async () => {
    const secrets = {
      TANGENT_TOKEN: 'host-token-e2e',
      OPENAI_API_KEY: 'sk-e2e',
      MY_SERVICE_TOKEN: 'mine-e2e',
    }
    const result = await runCommandInChild('env', secrets)
    expect(result?.output).toContain('TANGENT_HOME=')
    for (const value of Object.values(secrets)) expect(result?.output).not.toContain(value)
    const passed = await runCommandInChild('env', { ...secrets, TANGENT_BASH_PASS_ENV: 'MY_SERVICE_TOKEN' })
    expect(passed?.output).toContain('MY_SERVICE_TOKEN=mine-e2e')
    expect(passed?.output).not.toContain('host-token-e2e')
  })

  it("cannot read Tangent's data directory (the Host's token, the session logs)", async () => {
    // A stand-in for host.json, which the CLI removes when no Host answers.
    const planted = path.join(project.home, 'planted-secret.json')
    fs.writeFileSync(planted, '{"token":"host-token-e2e"}\n')
    try {
      const result = await runCommandInChild(
        'cat "$TANGENT_HOME/planted-secret.json"; cat "$TANGENT_HOME"/sessions/*; ls -A "$TANGENT_HOME"; echo listed',
      )
      expect(result?.output).not.toContain('host-token-e2e')
      expect(result?.output).not.toContain('session/start')
      expect(result?.output).toMatch(/planted-secret\.json: No such file or directory\n/)
      expect(result?.output).toMatch(/No such file or directory\nlisted\n/)
      expect(fs.readdirSync(project.home)).toContain('sessions')
    } finally {
      fs.rmSync(planted, { force: true })
    }
  })

  it('lists the real project (no stand-ins for absent files) and commits it all with git add -A', async () => {
    const repository = fs.mkdtempSync(path.join(path.dirname(project.cwd), 'repo-'))
    execFileSync('git', ['init', '-q'], { cwd: repository })
    fs.writeFileSync(path.join(repository, 'a.txt'), 'a\n')
    const result = await tangentJsonChild<{ sessionId: string }>({ ...project, cwd: repository }, [
      'run',
      'run: ls -A; git add -A && git -c user.name=t -c user.email=t@t commit -qm all && echo committed',
    ]).catch((error: Error) => error)
    expect(result).not.toBeInstanceOf(Error)
    const { events } = await json<{ events: ToolResult[] }>([
      'show',
      (result as { sessionId: string }).sessionId,
    ])
    const output = events.filter((event) => event.type === 'tool/result').at(-1)?.data.output ?? ''
    // Only the stand-in for the absent .tangent/, an empty folder git ignores, is not in the project.
    expect(output).toBe('.git\n.tangent\na.txt\ncommitted\n[exit code 0]')
    expect(fs.readdirSync(repository).sort()).toEqual(['.git', 'a.txt'])
    expect(
      execFileSync('git', ['show', '--name-only', '--format=%s', 'HEAD'], {
        cwd: repository,
        encoding: 'utf8',
      }),
    ).toBe('all\n\na.txt\n')
  })

  it('commits from a worktree fork, whose git metadata lives in the main repository', async () => {
    execFileSync('git', ['init', '-q'], { cwd: project.cwd })
    execFileSync(
      'git',
      ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'base'],
      {
        cwd: project.cwd,
      },
    )
    const { sessionId } = await runCommand('echo base > base.txt')
    const fork = await json<{ session: { id: string; cwd: string } }>([
      'fork',
      sessionId,
      '--files',
      'worktree',
    ])
    const { result } = await runCommand(
      'echo fork > fork.txt && git add -A && git -c user.name=t -c user.email=t@t commit -qm in-fork && git log -1 --format=%s',
      { session: fork.session.id },
    )
    expect(result?.output).toBe('in-fork\n[exit code 0]')
    const branch = `tangent/${fork.session.id}`
    expect(
      execFileSync('git', ['log', '-1', '--format=%s', branch], { cwd: project.cwd, encoding: 'utf8' }),
    ).toBe('in-fork\n')
    // The fork's hooks are the main repository's: still out of reach.
    const hook = await runCommand('echo evil > "$(git rev-parse --git-common-dir)/hooks/post-commit"', {
      session: fork.session.id,
    })
    expect(hook.result?.isError).toBe(true)
    expect(fs.existsSync(path.join(project.cwd, '.git', 'hooks', 'post-commit'))).toBe(false)
    // Nor can it point the main repository's git at a folder it controls.
    const commondir = await runCommand('echo /tmp > "$(git rev-parse --git-common-dir)/commondir"', {
      session: fork.session.id,
    })
    expect(commondir.result?.output).toMatch(/commondir: Read-only file system/)
    expect(fs.existsSync(path.join(project.cwd, '.git', 'commondir'))).toBe(false)
  })

  it('writes outside when TANGENT_SANDBOX=off (the knob is real)', async () => {
    const { result } = await runCommand('echo hi > ../outside.txt', { env: { TANGENT_SANDBOX: 'off' } })
    expect(result?.isError).toBe(false)
    expect(fs.readFileSync(outside(), 'utf8')).toBe('hi\n')
    fs.rmSync(outside())
  })
})
