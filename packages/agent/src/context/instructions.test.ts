import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { type InstructionsData, SessionStore } from '@tangent/core'
import { MockLanguageModelV4 } from 'ai/test'
import { afterEach, describe, expect, it } from 'vitest'
import { Agent } from '../agent.js'
import { ModelRegistry } from '../model-registry.js'
import { mockTextStream } from '../testing/mock-steps.js'
import { readInstructionFiles, userInstructionsPath } from './instruction-files.js'
import { systemPromptWithInstructions } from './instructions.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

function temp(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-instructions-')))
  dirs.push(dir)
  return dir
}

function write(file: string, content: string | Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, content)
}

describe('readInstructionFiles', () => {
  it('reads AGENTS.md, else CLAUDE.md, from cwd up to the repository root, after the user file', async () => {
    const root = temp()
    fs.mkdirSync(path.join(root, 'repo', '.git'), { recursive: true })
    write(path.join(root, 'AGENTS.md'), 'outside the repository: never read')
    write(path.join(root, 'repo', 'AGENTS.md'), 'root rules')
    write(path.join(root, 'repo', 'CLAUDE.md'), 'shadowed by AGENTS.md')
    write(path.join(root, 'repo', 'pkg', 'CLAUDE.md'), 'package rules')
    const cwd = path.join(root, 'repo', 'pkg', 'src')
    fs.mkdirSync(cwd, { recursive: true })
    const user = path.join(root, 'config', 'tangent', 'AGENTS.md')
    write(user, 'my rules')
    expect(await readInstructionFiles({ cwd, userPath: user })).toEqual([
      { path: user, scope: 'user', content: 'my rules' },
      { path: path.join('..', '..', 'AGENTS.md'), scope: 'project', content: 'root rules' },
      { path: path.join('..', 'CLAUDE.md'), scope: 'project', content: 'package rules' },
    ])
  })

  it('treats a .git file (a worktree) as the root, and reads only cwd outside a repository', async () => {
    const root = temp()
    write(path.join(root, 'AGENTS.md'), 'above')
    write(path.join(root, 'wt', '.git'), 'gitdir: /elsewhere')
    write(path.join(root, 'wt', 'AGENTS.md'), 'worktree rules')
    const files = await readInstructionFiles({ cwd: path.join(root, 'wt'), userPath: null })
    expect(files.map((file) => file.content)).toEqual(['worktree rules'])
    const loose = path.join(root, 'loose')
    fs.mkdirSync(loose)
    expect(await readInstructionFiles({ cwd: loose, userPath: null })).toEqual([])
  })

  it('cuts a large file with a note and replaces invalid UTF-8', async () => {
    const cwd = temp()
    write(
      path.join(cwd, 'AGENTS.md'),
      Buffer.concat([Buffer.from('ok '), Buffer.from([0xff, 0xfe]), Buffer.from('x'.repeat(100))]),
    )
    const [file] = await readInstructionFiles({ cwd, userPath: null, maxBytes: 20 })
    expect(file!.content).toMatch(
      /^ok \uFFFD\uFFFDx{15}\n\n\[Truncated: .*AGENTS\.md has 105 bytes; only the first 20 are included\.\]$/,
    )
  })

  it('finds the user file under XDG_CONFIG_HOME', () => {
    expect(userInstructionsPath({ XDG_CONFIG_HOME: '/cfg' })).toBe(path.join('/cfg', 'tangent', 'AGENTS.md'))
    expect(userInstructionsPath({})).toBe(path.join(os.homedir(), '.config', 'tangent', 'AGENTS.md'))
  })
})

describe('Agent and project instructions', () => {
  function setup(cwd: string, replies: number) {
    const model = new MockLanguageModelV4({
      doStream: Array.from({ length: replies }, (_, i) => mockTextStream(`answer ${i + 1}`)),
    })
    const store = new SessionStore()
    const session = store.create(undefined, { meta: { cwd, baseTree: 'fork-point-tree' } })
    const models = new ModelRegistry({ env: {}, models: { 'mock:model': model } })
    const agentOf = (target: typeof session) =>
      new Agent({
        session: target,
        models,
        defaultModel: 'mock:model',
        maxRetries: 0,
        userInstructionsPath: null,
        system: 'BASE',
        flush: async () => {},
      })
    return { model, session, agent: agentOf(session) }
  }
  const recorded = (events: readonly { type: string; data: unknown }[]) =>
    events
      .filter((event) => event.type === 'context/instructions')
      .map((event) => event.data as InstructionsData)
  const systemOf = (model: MockLanguageModelV4, call: number) => {
    const system = model.doStreamCalls[call]!.prompt.find((message) => message.role === 'system')
    return system?.role === 'system' ? system.content : ''
  }

  it('records the files once, again when their content changes, and [] when they go', async () => {
    const cwd = temp()
    write(path.join(cwd, 'AGENTS.md'), 'Use tabs.')
    const { model, session, agent } = setup(cwd, 4)
    await agent.prompt('one')
    await agent.prompt('two')
    expect(recorded(session.events)).toEqual([
      { files: [{ path: 'AGENTS.md', scope: 'project', content: 'Use tabs.' }] },
    ])
    // It stands after the turn's user message, before the first step.
    const at = session.events.findIndex((event) => event.type === 'context/instructions')
    expect(session.events[at - 1]!.type).toBe('user/message')
    expect(systemOf(model, 0)).toContain('BASE')
    expect(systemOf(model, 0)).toContain('Use tabs.')

    write(path.join(cwd, 'AGENTS.md'), 'Use spaces.')
    await agent.prompt('three')
    fs.rmSync(path.join(cwd, 'AGENTS.md'))
    await agent.prompt('four')
    expect(recorded(session.events).map((data) => data.files.map((file) => file.content))).toEqual([
      ['Use tabs.'],
      ['Use spaces.'],
      [],
    ])
    expect(systemOf(model, 2)).toContain('Use spaces.')
    expect(systemOf(model, 3)).toBe('BASE')
  })

  it('sends what the log recorded: each call’s system prompt is rebuilt from the log prefix before it', async () => {
    const cwd = temp()
    const { model, session, agent } = setup(cwd, 3)
    write(path.join(cwd, 'AGENTS.md'), 'Version 1.')
    await agent.prompt('one')
    write(path.join(cwd, 'CLAUDE.md'), 'ignored beside AGENTS.md')
    write(path.join(cwd, 'AGENTS.md'), 'Version 2.')
    await agent.prompt('two')
    fs.rmSync(path.join(cwd, 'AGENTS.md'))
    await agent.prompt('three')
    const stepStarts = session.events.filter((event) => event.type === 'step/start')
    expect(stepStarts).toHaveLength(3)
    stepStarts.forEach((stepStart, call) => {
      const before = session.latestOfType('context/instructions', stepStart.seq)?.data as InstructionsData
      expect(systemOf(model, call)).toBe(systemPromptWithInstructions('BASE', before))
    })
    expect(systemOf(model, 2)).toContain('ignored beside AGENTS.md')
  })
})
