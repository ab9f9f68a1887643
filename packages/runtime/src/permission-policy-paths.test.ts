// The decider and the open-time guard on real folders (docs/architecture.md §12.1): rules see
// where a path really leads, the repository's machinery asks, and a link changed between the
// decision and the open is refused.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { type AgentTool, createDefaultTools } from '@tangent/agent'
import { realPathCheck } from '@tangent/agent/light'
import { describe, expect, it } from 'vitest'
import { ConfigFiles } from './config.js'
import { filePathGuard, permissionDecider } from './permission-policy.js'
import { tempDirs } from './temp-dirs.test-helper.js'

const temp = tempDirs('tangent-file-permissions-')
const writeTool = createDefaultTools().write!

function setUp(permission: Record<string, unknown> = {}) {
  const project = temp()
  const configFile = path.join(temp(), 'config.json')
  fs.writeFileSync(configFile, JSON.stringify({ permission }))
  const config = new ConfigFiles({ env: { TANGENT_CONFIG: configFile }, homeDir: temp() })
  const decide = permissionDecider(config, async () => true)
  const ask = (toolName: string, input: unknown, cwd = project) =>
    decide({ modelId: 'openai:gpt-test', toolName, input, sessionRules: [], mode: 'edit', cwd })
  return { project, config, ask }
}

function write(tool: AgentTool, cwd: string, input: unknown, check?: ReturnType<typeof realPathCheck>) {
  const signal = new AbortController().signal
  return tool.run(tool.inputSchema.parse(input), { cwd, signal, ...(check ? { checkRealPath: check } : {}) })
}

describe('the permission decider on real folders', () => {
  it('denies a write through a link to a denied folder, and asks for one through a link to .tangent', async () => {
    const { project, ask } = setUp({ write: { 'secrets/**': 'deny' } })
    fs.mkdirSync(path.join(project, 'secrets'))
    fs.mkdirSync(path.join(project, '.tangent'))
    fs.symlinkSync('secrets', path.join(project, 's'))
    fs.symlinkSync('.tangent', path.join(project, 'cfg'))
    expect(await ask('write', { path: 's/key' })).toMatchObject({ action: 'deny', realPath: 'secrets/key' })
    expect(await ask('edit', { path: 's/key' })).toMatchObject({ action: 'allow' }) // the rule names write
    expect(await ask('write', { path: 'cfg/config.json' })).toMatchObject({
      action: 'ask',
      pattern: '.tangent/config.json',
    })
  })

  it('asks about where a dangling link points (.tangent not there yet), and the write tool still refuses it', async () => {
    const { project, ask } = setUp({ write: 'allow' })
    fs.mkdirSync(path.join(project, 'sub'))
    fs.symlinkSync('../.tangent', path.join(project, 'sub', 'rules'))
    expect(await ask('write', { path: 'sub/rules/config.json' })).toMatchObject({
      action: 'ask',
      pattern: '.tangent/config.json',
    })
    await expect(write(writeTool, project, { path: 'sub/rules/config.json', content: '{}' })).rejects.toThrow(
      /symlink whose target does not exist/,
    )
    expect(fs.existsSync(path.join(project, '.tangent'))).toBe(false)
  })

  it("asks before writing a repository's .git, also a worktree's .git file and a nested repository's", async () => {
    const { project, ask } = setUp({ write: 'allow', edit: 'allow' })
    const git = (...args: string[]) => execFileSync('git', ['-C', project, ...args], { stdio: 'ignore' })
    git('init', '-q')
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'init')
    const worktree = path.join(temp(), 'wt')
    git('worktree', 'add', '-q', worktree)
    fs.mkdirSync(path.join(project, 'sub', '.git'), { recursive: true })
    fs.symlinkSync('.git/hooks', path.join(project, 'hooks'))
    for (const target of ['.git/config', '.git/hooks/pre-commit', 'sub/.git/config']) {
      expect(await ask('write', { path: target }), target).toMatchObject({ action: 'ask', pattern: target })
    }
    expect(await ask('write', { path: 'hooks/pre-commit' })).toMatchObject({
      action: 'ask',
      pattern: '.git/hooks/pre-commit',
    })
    expect(await ask('edit', { path: '.git' }, worktree)).toMatchObject({ action: 'ask', pattern: '.git' })
    expect(await ask('read', { path: '.git/config' })).toMatchObject({ action: 'allow' })
  })
})

describe('a git dir under another name inside the folder', () => {
  it('asks before writing it, as .git, when a .git file points there', async () => {
    const { project, ask } = setUp({ write: 'allow' })
    fs.mkdirSync(path.join(project, 'meta', 'hooks'), { recursive: true })
    fs.writeFileSync(path.join(project, '.git'), 'gitdir: meta\n')
    fs.mkdirSync(path.join(project, 'sub'))
    expect(await ask('write', { path: 'meta/hooks/pre-commit' })).toMatchObject({
      action: 'ask',
      pattern: 'meta/hooks/pre-commit',
    })
    // From a session in a subfolder the git dir is outside its folder: the tools refuse it anyway.
    expect(await ask('write', { path: 'metadata.txt' })).toMatchObject({ action: 'allow' })
    expect(await ask('write', { path: 'x.txt' }, path.join(project, 'sub'))).toMatchObject({
      action: 'allow',
    })
  })
})

describe('the check when a file tool opens the path', () => {
  it('refuses a path whose link changed since the decision; nothing lands in the denied folder', async () => {
    const { project, config, ask } = setUp({ write: { 'secrets/**': 'deny' } })
    fs.mkdirSync(path.join(project, 'secrets'))
    fs.mkdirSync(path.join(project, 'ok'))
    fs.symlinkSync('ok', path.join(project, 's'))
    const verdict = await ask('write', { path: 's/key' })
    expect(verdict).toMatchObject({ action: 'allow', realPath: 'ok/key' })
    fs.rmSync(path.join(project, 's'))
    fs.symlinkSync('secrets', path.join(project, 's'))
    const guard = filePathGuard(config, path.join(temp(), 'data'))
    const approved = realPathCheck('write', project, verdict.realPath, guard)
    await expect(write(writeTool, project, { path: 's/key', content: 'x' }, approved)).rejects.toThrow(
      /now leads to secrets\/key, not to ok\/key/,
    )
    // Without a decision (no approved path) the guard's deny rules refuse it all the same.
    const guarded = realPathCheck('write', project, undefined, guard)
    await expect(write(writeTool, project, { path: 's/key', content: 'x' }, guarded)).rejects.toThrow(
      /Permission denied: `write: secrets\/\*\*` is deny/,
    )
    expect(fs.readdirSync(path.join(project, 'secrets'))).toEqual([])
    expect(fs.readdirSync(path.join(project, 'ok'))).toEqual([])
  })

  it('leaves what a deny rule covers out of a grep over the folder', async () => {
    const { project, config, ask } = setUp({ '*': { 'secrets/**': 'deny' } })
    fs.mkdirSync(path.join(project, 'secrets'))
    fs.writeFileSync(path.join(project, 'secrets', 'key'), 'TOKEN=1\n')
    fs.writeFileSync(path.join(project, 'app.env'), 'TOKEN=2\n')
    const verdict = await ask('grep', { pattern: 'TOKEN' })
    expect(verdict).toMatchObject({ action: 'allow', realPath: '.' })
    const grep = createDefaultTools().grep!
    const check = realPathCheck('grep', project, verdict.realPath, filePathGuard(config, temp()))
    const signal = new AbortController().signal
    const result = await grep.run(grep.inputSchema.parse({ pattern: 'TOKEN' }), {
      cwd: project,
      signal,
      ...(check ? { checkRealPath: check } : {}),
    })
    expect(result.output).toBe(
      'app.env:1: TOKEN=2\n[1 files or folders not searched: the permission rules refuse them]',
    )
  })

  it("never writes in Tangent's data directory inside the project, names it does not hold yet included", async () => {
    const { project, config } = setUp()
    const home = path.join(project, 'data')
    fs.mkdirSync(path.join(home, 'worktrees', 'w1'), { recursive: true })
    fs.symlinkSync('data', path.join(project, 'd'))
    const check = realPathCheck('write', project, undefined, filePathGuard(config, home))
    for (const target of ['data/fresh.json', 'd/fresh/dir/file.txt', 'data/worktrees']) {
      await expect(
        write(writeTool, project, { path: target, content: 'x' }, check),
        target,
      ).rejects.toMatchObject({
        code: 'invalid-path',
      })
    }
    expect(fs.readdirSync(home)).toEqual(['worktrees'])
    expect(
      (await write(writeTool, project, { path: 'data/worktrees/w1/a.txt', content: 'x' }, check)).output,
    ).toBe('Wrote data/worktrees/w1/a.txt (1 bytes).')
  })
})
