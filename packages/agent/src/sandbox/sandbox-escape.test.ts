// The ways out of the bash sandbox an adversarial pass found (issue 25), each tried for real:
// real bubblewrap, real git, real processes. Git's machinery (config, hooks, commondir, info,
// modules, worktrees), `.tangent/`, the data directory and the Host token stay out of reach; the
// tree the command sees is the real one, so `git add -A && git commit` works; and nothing a
// command starts outlives it or Tangent.
import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createBashTool } from '../tools/bash.js'
import { BashSandbox, type CommandSandbox } from './bash-sandbox.js'

let base: string
let cwd: string
let dataDirectory: string
let sandbox: BashSandbox
const probeSandbox = new BashSandbox()
afterAll(() => probeSandbox.dispose())
const available = (await probeSandbox.probe()).available

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-escape-')))
  cwd = path.join(base, 'project')
  dataDirectory = path.join(base, 'home')
  fs.mkdirSync(cwd)
  fs.mkdirSync(dataDirectory, { mode: 0o700 })
  sandbox = new BashSandbox({ dataDirectory })
})
afterEach(async () => {
  await sandbox.dispose()
  fs.rmSync(base, { recursive: true, force: true })
})

interface RunOptions {
  cwd?: string
  timeoutMs?: number
  signal?: AbortSignal
  env?: NodeJS.ProcessEnv
  passEnv?: readonly string[]
  sandbox?: CommandSandbox | null
}

async function bash(command: string, options: RunOptions = {}) {
  const chosen = options.sandbox === undefined ? sandbox : options.sandbox
  const tool = createBashTool({
    ...(chosen
      ? { sandbox: { sandbox: chosen, mode: 'required', tempKey: `t-${path.basename(base)}` } }
      : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.passEnv ? { passEnv: options.passEnv } : {}),
  })
  const input = tool.inputSchema.parse({
    command,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  })
  return tool.run(input, { cwd: options.cwd ?? cwd, signal: options.signal ?? new AbortController().signal })
}

function git(directory: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd: directory,
    encoding: 'utf8',
  })
}

function makeRepository(directory: string): void {
  fs.mkdirSync(directory, { recursive: true })
  git(directory, 'init', '-q')
  fs.writeFileSync(path.join(directory, 'base.txt'), 'base\n')
  git(directory, 'add', '-A')
  git(directory, 'commit', '-qm', 'base')
}

/** Every file under `directory` with its content ('<dir>' for folders): to compare before and after. */
function snapshot(directory: string): Record<string, string> {
  const files: Record<string, string> = {}
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name)
      const name = path.relative(directory, full)
      if (entry.isDirectory()) {
        files[name] = '<dir>'
        walk(full)
      } else files[name] = fs.readFileSync(full, 'latin1')
    }
  }
  walk(directory)
  return files
}

/** The machinery of a git directory, without what a commit writes (objects, refs, logs, index…). */
function machinery(gitDirectory: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(snapshot(gitDirectory)).filter(
      ([name]) =>
        !/^(objects|refs|logs)(\/|$)|^(index|HEAD|ORIG_HEAD|COMMIT_EDITMSG)$|\/(index|HEAD|ORIG_HEAD|COMMIT_EDITMSG|logs.*)$/.test(
          name,
        ),
    ),
  )
}

/** Processes whose command line starts with `text` (or contains it, with `anywhere`), besides this one. */
function processesWith(text: string, anywhere = false): string[] {
  const found: string[] = []
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue
    try {
      const line = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')
      if (anywhere ? line.includes(text) : line.startsWith(text)) found.push(`${pid}: ${line}`)
    } catch {
      // Gone meanwhile.
    }
  }
  return found
}

async function settle(ms = 300): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms))
}

const attempts = [
  'echo "[core] fsmonitor = touch /tmp/pwned" >> .git/config',
  'echo evil > .git/hooks/post-checkout',
  'echo /tmp/elsewhere > .git/commondir',
  'echo "* filter=evil" > .git/info/attributes',
  'mkdir -p .git/modules/x && echo evil > .git/modules/x/config',
  'mkdir -p .git/worktrees/x && echo /tmp/elsewhere > .git/worktrees/x/commondir',
  'echo evil > .git/worktrees/wt/commondir',
  'echo "[core] fsmonitor = evil" > .git/config.worktree',
  'git config core.fsmonitor "touch /tmp/pwned"',
  'rm -rf .git/hooks',
  'mv .git/hooks .git/hooks-moved',
  // Moving the whole folder aside, read-only parts and all, and making a new one in its place.
  'mv .git .git-moved && mkdir .git && echo "[core] fsmonitor = evil" > .git/config',
]

describe.runIf(available)('git machinery in the sandbox', () => {
  it("is read-only in the session's repository, and git add -A && git commit still work", async () => {
    makeRepository(cwd)
    git(cwd, 'worktree', 'add', '-q', path.join(base, 'wt'))
    fs.mkdirSync(path.join(cwd, '.git', 'modules', 'sub'), { recursive: true })
    fs.writeFileSync(path.join(cwd, '.git', 'modules', 'sub', 'config'), '[core]\n')
    const before = machinery(path.join(cwd, '.git'))
    const result = await bash(
      `${attempts.map((attempt) => `${attempt}; `).join('')}echo new > new.txt && git add -A && git -c user.name=t -c user.email=t@t commit -qm inside && echo committed`,
    )
    expect(result.output).toContain('committed')
    expect(result.output).toMatch(/\.git\/config: Read-only file system/)
    expect(result.output).toContain("and so are .tangent/ and the repository's git machinery")
    expect(git(cwd, 'log', '-1', '--format=%s')).toBe('inside\n')
    expect(git(cwd, 'status', '--porcelain')).toBe('')
    // Nothing of the machinery changed, and the stand-ins for what was absent are gone again.
    expect(machinery(path.join(cwd, '.git'))).toEqual(before)
    for (const absent of ['commondir', 'config.worktree', 'info/attributes', 'modules/x', 'worktrees/x'])
      expect(fs.existsSync(path.join(cwd, '.git', absent))).toBe(false)
    expect(fs.existsSync(path.join(cwd, '.git-moved'))).toBe(false)
  })

  it('is read-only in the main repository for a worktree session, whose own commits still work', async () => {
    const main = path.join(base, 'main')
    makeRepository(main)
    const worktree = path.join(base, 'fork')
    git(main, 'worktree', 'add', '-q', '-b', 'fork', worktree)
    const mainGit = path.join(main, '.git')
    const before = machinery(mainGit)
    const dotGit = fs.readFileSync(path.join(worktree, '.git'), 'utf8')
    const result = await bash(
      [
        `echo /tmp/elsewhere > ${mainGit}/commondir`,
        `echo "[core] fsmonitor = evil" >> ${mainGit}/config`,
        `echo evil > ${mainGit}/hooks/post-commit`,
        `echo evil > ${mainGit}/worktrees/fork/commondir`,
        `echo evil > ${mainGit}/worktrees/fork/config.worktree`,
        `echo evil > ${mainGit}/worktrees/other`,
        'echo "gitdir: /tmp/elsewhere" > .git',
        'echo f > f.txt && git add -A && git -c user.name=t -c user.email=t@t commit -qm in-fork && echo committed',
      ].join('; '),
      { cwd: worktree },
    )
    expect(result.output).toContain('committed')
    expect(git(main, 'log', '-1', '--format=%s', 'fork')).toBe('in-fork\n')
    expect(fs.readFileSync(path.join(worktree, '.git'), 'utf8')).toBe(dotGit)
    expect(machinery(mainGit)).toEqual(before)
    expect(fs.existsSync(path.join(mainGit, 'commondir'))).toBe(false)
  })

  it('keeps core.hooksPath read-only where it names a folder of the working tree, existing or not', async () => {
    makeRepository(cwd)
    git(cwd, 'config', 'core.hooksPath', '.husky/_')
    const result = await bash('mkdir -p .husky/_ && echo evil > .husky/_/pre-commit; echo done')
    expect(result.output).toMatch(/Read-only file system/)
    expect(fs.existsSync(path.join(cwd, '.husky'))).toBe(false)
    fs.mkdirSync(path.join(cwd, '.husky', '_'), { recursive: true })
    fs.writeFileSync(path.join(cwd, '.husky', '_', 'pre-commit'), 'npm test\n')
    await bash(
      'echo evil > .husky/_/pre-commit; echo evil > .husky/_/post-checkout; mv .husky .husky-moved && mkdir -p .husky/_ && echo evil > .husky/_/pre-commit',
    )
    expect(snapshot(path.join(cwd, '.husky'))).toEqual({ _: '<dir>', '_/pre-commit': 'npm test\n' })
    expect(fs.existsSync(path.join(cwd, '.husky-moved'))).toBe(false)
  })

  it('refuses to run where the hooks folder is reached through a link the command could retarget', async () => {
    makeRepository(cwd)
    fs.mkdirSync(path.join(cwd, 'hooks-target', '_'), { recursive: true })
    fs.symlinkSync('hooks-target', path.join(cwd, '.husky'))
    git(cwd, 'config', 'core.hooksPath', '.husky/_')
    await expect(bash('echo ran > ran.txt')).rejects.toThrow(/symbolic link/)
    expect(fs.existsSync(path.join(cwd, 'ran.txt'))).toBe(false)
  })

  it('cannot git init a folder that is not a repository, nor one below a repository', async () => {
    const result = await bash(
      'git init -q; mkdir -p .git/hooks && echo evil > .git/hooks/post-checkout; echo kept > file.txt; ls -A',
    )
    expect(result.output).toMatch(/Read-only file system|Permission denied/)
    expect(fs.readFileSync(path.join(cwd, 'file.txt'), 'utf8')).toBe('kept\n')
    expect(fs.existsSync(path.join(cwd, '.git'))).toBe(false)
    const repository = path.join(base, 'repository')
    makeRepository(repository)
    const below = path.join(repository, 'package')
    fs.mkdirSync(below)
    await bash('git init -q; echo "[core] fsmonitor = evil" > .git/config', { cwd: below })
    expect(fs.existsSync(path.join(below, '.git'))).toBe(false)
    expect(git(repository, 'status', '--porcelain')).toBe('')
  })
})

describe.runIf(available)('a commondir that names another repository', () => {
  it("gives no write to that repository's objects and refs (an unpacked archive's, or a planted one)", async () => {
    makeRepository(cwd)
    const other = path.join(base, 'other')
    makeRepository(other)
    fs.writeFileSync(path.join(cwd, '.git', 'commondir'), `${path.join(other, '.git')}\n`)
    const before = snapshot(path.join(other, '.git', 'refs'))
    const result = await bash(
      `echo x > ${path.join(other, '.git', 'objects', 'planted')}; echo y > ${path.join(other, '.git', 'refs', 'heads', 'planted')}`,
    )
    expect(result.output).toMatch(/Read-only file system/)
    expect(fs.existsSync(path.join(other, '.git', 'objects', 'planted'))).toBe(false)
    expect(snapshot(path.join(other, '.git', 'refs'))).toEqual(before)
  })
})

describe.runIf(available)('stand-ins for absent paths', () => {
  it('are shared by concurrent commands and gone after the last, with what a crash left behind', async () => {
    makeRepository(cwd)
    // Left by a Tangent that crashed during a command: removed after the next one.
    fs.mkdirSync(path.join(cwd, '.tangent'))
    fs.writeFileSync(path.join(cwd, '.git', 'commondir'), '.\n')
    const [first, second] = await Promise.all([
      bash('sleep 0.3; echo x > .tangent/x; echo one > one.txt'),
      bash('sleep 0.5; echo two > two.txt; ls -A .tangent; echo listed'),
    ])
    expect(first.output).toMatch(/Read-only file system/)
    expect(second.output).toContain('listed')
    expect(fs.readFileSync(path.join(cwd, 'two.txt'), 'utf8')).toBe('two\n')
    expect(fs.existsSync(path.join(cwd, '.tangent'))).toBe(false)
    expect(fs.existsSync(path.join(cwd, '.git', 'commondir'))).toBe(false)
    expect(git(cwd, 'status', '--porcelain')).toBe('?? one.txt\n?? two.txt\n')
  })
})

describe.runIf(available)('.tangent/ in the sandbox', () => {
  it('cannot be created', async () => {
    const result = await bash('mkdir -p .tangent; echo "{}" > .tangent/config.json; echo done')
    expect(result.output).toMatch(/Read-only file system/)
    expect(fs.existsSync(path.join(cwd, '.tangent'))).toBe(false)
  })

  it('cannot be changed where it exists', async () => {
    fs.mkdirSync(path.join(cwd, '.tangent'))
    fs.writeFileSync(path.join(cwd, '.tangent', 'config.json'), '{"permission":{}}\n')
    await bash(
      'echo "{}" > .tangent/config.json; echo x > .tangent/other.json; rm -rf .tangent; mv .tangent .moved && mkdir .tangent && echo "{}" > .tangent/config.json',
    )
    expect(snapshot(path.join(cwd, '.tangent'))).toEqual({ 'config.json': '{"permission":{}}\n' })
    expect(fs.existsSync(path.join(cwd, '.moved'))).toBe(false)
  })
})

describe.runIf(available)('the tree a sandboxed command sees', () => {
  it('is the real one: no placeholders of files that do not exist, and git add -A commits', async () => {
    makeRepository(cwd)
    fs.mkdirSync(path.join(cwd, '.tangent'))
    fs.writeFileSync(path.join(cwd, '.tangent', 'config.json'), '{}\n')
    git(cwd, 'add', '-A')
    git(cwd, 'commit', '-qm', 'config')
    // The library resolved its stand-ins (.bashrc, .gitconfig, .vscode, .claude…) against the
    // process's folder: here, as when the CLI runs in the project, that is the session's.
    const runnerFolder = process.cwd()
    process.chdir(cwd)
    const result = await bash(
      'ls -A; echo ---; git status --porcelain; echo ---; echo x > x.txt; git add -A && git -c user.name=t -c user.email=t@t commit -qm all && echo committed',
    ).finally(() => process.chdir(runnerFolder))
    const [inside, status] = result.output.split('---\n')
    expect((inside ?? '').trim().split('\n').sort()).toEqual(['.git', '.tangent', 'base.txt'])
    expect(status).toBe('')
    expect(result.output).toContain('committed')
    expect(fs.readdirSync(cwd).sort()).toEqual(['.git', '.tangent', 'base.txt', 'x.txt'])
  })

  it('hides the data directory, except a worktree inside it', async () => {
    fs.writeFileSync(path.join(dataDirectory, 'host.json'), '{"token":"secret-token"}\n')
    fs.mkdirSync(path.join(dataDirectory, 'sessions'))
    const main = path.join(base, 'main')
    makeRepository(main)
    const worktree = path.join(dataDirectory, 'worktrees', 'f1')
    git(main, 'worktree', 'add', '-q', '-b', 'f1', worktree)
    const outside = await bash(
      `cat ${dataDirectory}/host.json; ls -A ${dataDirectory}; echo x > ${dataDirectory}/x`,
    )
    expect(outside.output).not.toContain('secret-token')
    expect(outside.output).toMatch(/host\.json: No such file or directory/)
    expect(fs.existsSync(path.join(dataDirectory, 'x'))).toBe(false)
    const inside = await bash(
      'cat ../../host.json; echo w > w.txt && git add -A && git -c user.name=t -c user.email=t@t commit -qm w && echo committed',
      { cwd: worktree },
    )
    expect(inside.output).not.toContain('secret-token')
    expect(inside.output).toContain('committed')
    expect(git(main, 'log', '-1', '--format=%s', 'f1')).toBe('w\n')
  })
})

describe.runIf(available && ['x64', 'arm64'].includes(process.arch))('Unix sockets', () => {
  it('cannot be opened, so no program outside (a D-Bus session bus, Docker) runs anything', async () => {
    let connections = 0
    const server = net.createServer((socket) => {
      connections += 1
      socket.destroy()
    })
    const socketPath = path.join(base, 'outside.sock')
    await new Promise<void>((resolve) => server.listen(socketPath, resolve))
    try {
      const script = `require('node:net').connect(${JSON.stringify(socketPath)}).on('connect', () => console.log('connected')).on('error', (e) => console.log(e.code))`
      const result = await bash(`${JSON.stringify(process.execPath)} -e ${JSON.stringify(script)}`)
      expect(result.output).not.toContain('connected')
      expect(result.output).toMatch(/EPERM|EACCES/)
      expect(connections).toBe(0)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })
})

describe('the environment of a command', () => {
  const parent = {
    ...process.env,
    TANGENT_TOKEN: 'host-token',
    OPENAI_API_KEY: 'sk-openai',
    TANGENT_OPENAI_COMPATIBLE_API_KEY: 'sk-compatible',
    GITHUB_TOKEN: 'gh-token',
    DB_PASSWORD: 'hunter2',
    AWS_SECRET_ACCESS_KEY: 'aws-secret',
    HARMLESS: 'visible',
  }

  it.each([
    ['sandboxed', undefined],
    ['unsandboxed', null],
  ] as const)('%s, has no Host token or keys unless listed in passEnv', async (_name, chosen) => {
    if (chosen === undefined && !available) return
    const result = await bash('env', { env: parent, sandbox: chosen })
    expect(result.output).toContain('HARMLESS=visible')
    for (const secret of ['host-token', 'sk-openai', 'sk-compatible', 'gh-token', 'hunter2', 'aws-secret'])
      expect(result.output).not.toContain(secret)
    const passed = await bash('env', { env: parent, sandbox: chosen, passEnv: ['GITHUB_TOKEN'] })
    expect(passed.output).toContain('GITHUB_TOKEN=gh-token')
    expect(passed.output).not.toContain('host-token')
  })
})

describe('processes a command starts', () => {
  it.each([
    ['sandboxed', undefined],
    ['unsandboxed', null],
  ] as const)('%s, end with it, also in a session of their own', async (_name, chosen) => {
    if (chosen === undefined && !available) return
    const marker = `${5000 + Math.floor(Math.random() * 1000)}`
    const ended = await bash(
      `setsid sleep ${marker}.1 > /dev/null 2>&1 & setsid sleep ${marker}.2 & echo started`,
      {
        sandbox: chosen,
      },
    )
    expect(ended.output).toContain('started')
    const timedOut = await bash(`setsid sleep ${marker}.3 & sleep ${marker}.4`, {
      sandbox: chosen,
      timeoutMs: 300,
    })
    expect(timedOut.output).toContain('[killed: timed out after 300 ms]')
    const controller = new AbortController()
    const aborted = bash(`setsid sleep ${marker}.5 & sleep ${marker}.6`, {
      sandbox: chosen,
      signal: controller.signal,
    })
    setTimeout(() => controller.abort(), 300)
    await aborted
    await settle()
    expect(processesWith(`sleep ${marker}.`)).toEqual([])
  })

  it('left behind by a Tangent killed while they ran unsandboxed end at the next command', async () => {
    const marker = `${7000 + Math.floor(Math.random() * 1000)}`
    // The process id of a Tangent that is gone: a process that has exited.
    const gone = spawn('true')
    await new Promise((resolve) => gone.on('exit', resolve))
    const orphan = spawn('setsid', ['sleep', `${marker}.1`], {
      env: { ...process.env, TANGENT_COMMAND_ID: `${gone.pid}-orphan` },
      stdio: 'ignore',
      detached: true,
    })
    orphan.unref()
    for (let waited = 0; processesWith(`sleep ${marker}.1`).length === 0 && waited < 5000; waited += 50)
      await settle(50)
    expect(processesWith(`sleep ${marker}.1`)).toHaveLength(1)
    await bash('true', { sandbox: null })
    await settle()
    expect(processesWith(`sleep ${marker}.1`)).toEqual([])
  })

  it.runIf(available)('end when the process running them is killed with SIGKILL', async () => {
    const marker = `${6000 + Math.floor(Math.random() * 1000)}`
    const wrapped = await sandbox.wrap(`setsid sleep ${marker}.1 & sleep ${marker}.2`, {
      cwd,
      tempKey: 'kill',
    })
    // A stand-in for Tangent: a Node process that starts the sandboxed command and is killed -9.
    const script = `require('node:child_process').spawn(process.argv[1], JSON.parse(process.argv[2]), { stdio: 'ignore', detached: true }); setInterval(() => {}, 1000)`
    const host = spawn(process.execPath, ['-e', script, wrapped.file, JSON.stringify(wrapped.args)], {
      cwd,
      stdio: 'ignore',
    })
    for (let waited = 0; processesWith(`sleep ${marker}.`).length < 2 && waited < 5000; waited += 50)
      await settle(50)
    expect(processesWith(`sleep ${marker}.`)).toHaveLength(2)
    host.kill('SIGKILL')
    await settle(500)
    expect(processesWith(`sleep ${marker}.`)).toEqual([])
    // Nor bubblewrap, nor the shell: nothing whose command line names the command.
    expect(processesWith(`${marker}.2`, true)).toEqual([])
    await wrapped.release()
  })
})
