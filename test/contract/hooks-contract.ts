// Hooks on the session's life (docs/architecture.md §12.7), part of the session contract: the
// runtime behind each front-end runs the config's hook commands — real shell processes, in the
// bash sandbox where the machine has one — at the documented events, with the documented JSON on
// stdin. Hook scripts here write what they read into the session's folder (the one place a
// sandboxed hook may write), and the tests read it back.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { type ContractFixture, tempDir, waitFor } from './session-contract.js'

/** The JSON lines a hook wrote with `cat >> NAME` in `folder` (each event is one line). */
function linesOf(folder: string, name: string): Record<string, unknown>[] {
  const file = path.join(folder, name)
  if (!fs.existsSync(file)) return []
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}

/** Processes whose command line holds `token` (a hook's `sleep` with an unusual duration). */
function processesWith(token: string): number[] {
  const found: number[] = []
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').includes(token))
        found.push(Number(pid))
    } catch {
      // Gone meanwhile.
    }
  }
  return found
}

export function runHooksContract(fixture: () => ContractFixture): void {
  const api = () => fixture().api
  const start = () => fixture().start
  const turn = (sessionId: string, text: string) => api().call('session.prompt', { sessionId, text })
  const userConfig = (config: unknown) => {
    const dir = path.join(fixture().homeDir, '.config', 'tangent')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config))
  }
  const eventsOf = async (sessionId: string) => (await api().call('session.get', { sessionId })).events
  const toolResults = async (sessionId: string) =>
    (await eventsOf(sessionId))
      .filter((event) => event.type === 'tool/result')
      .map((event) => event.data as { toolName: string; output: string; isError: boolean })

  describe('hooks', () => {
    it('each hook fires once with the documented JSON on stdin, in the session’s folder, sandboxed, with no secret in its environment', async () => {
      const log = 'cat >> hooks.jsonl'
      const outside = tempDir('tangent-hook-outside-')
      userConfig({
        hooks: {
          sessionStart: [
            { command: log },
            { command: 'env > hook-env.txt' },
            { command: `touch ${outside}/escaped.txt` },
          ],
          preToolUse: [{ command: log }],
          postToolUse: [{ command: log }],
          turnEnd: [{ command: log }],
          fork: [{ command: log }],
        },
      })
      const session = await api().call('session.create', { title: 'Hooked' })
      const ran = await turn(session.id, 'run: echo hooked')
      expect(ran.reason).toBe('completed')
      const forked = await api().call('session.fork', { sessionId: session.id })
      const lines = linesOf(start(), 'hooks.jsonl')
      expect(lines.map((line) => line.event)).toEqual([
        'sessionStart',
        'preToolUse',
        'postToolUse',
        'turnEnd',
        'fork',
      ])
      const base = { sessionId: session.id, cwd: start() }
      expect(lines[0]).toEqual({ event: 'sessionStart', ...base, model: 'demo:scripted', title: 'Hooked' })
      const call = (await eventsOf(session.id)).find((event) => event.type === 'assistant/message')!.data as {
        content: { type: string; toolCallId?: string }[]
      }
      const callId = call.content.find((part) => part.type === 'tool-call')!.toolCallId
      // The turn's answer, as `run --json` and the SDK give it: each message's text, a blank line between.
      const replyText = (await eventsOf(session.id))
        .filter((event) => event.type === 'assistant/message')
        .map((event) =>
          (event.data as { content: { type: string; text?: string }[] }).content
            .filter((part) => part.type === 'text')
            .map((part) => part.text)
            .join(''),
        )
        .filter((text) => text !== '')
        .join('\n\n')
      expect(replyText).not.toBe('')
      const toolCall = { id: callId, name: 'bash', input: { command: 'echo hooked' } }
      expect(lines[1]).toEqual({ event: 'preToolUse', ...base, toolCall })
      expect(lines[2]).toEqual({
        event: 'postToolUse',
        ...base,
        toolCall,
        result: { output: 'hooked\n[exit code 0]', isError: false },
      })
      expect(lines[3]).toEqual({
        event: 'turnEnd',
        ...base,
        turnStartSeq: ran.turnStartSeq,
        turnEndSeq: ran.turnEndSeq,
        reason: 'completed',
        text: replyText,
      })
      expect(lines[4]).toEqual({
        event: 'fork',
        sessionId: forked.session.id,
        cwd: start(),
        parent: { sessionId: session.id, atSeq: forked.boundary },
        child: { sessionId: forked.session.id, cwd: start(), files: 'shared', title: forked.session.title },
      })
      // A hook that lets a call through leaves the log as it was: only refusals are decisions.
      expect((await eventsOf(session.id)).some((event) => event.type.startsWith('permission/'))).toBe(false)

      // Where bash is sandboxed, so are hooks: they write only in the session's folder and TMPDIR.
      const sandboxed = (await api().call('host.info', {})).sandbox?.bash === 'sandboxed'
      expect(fs.existsSync(path.join(outside, 'escaped.txt'))).toBe(!sandboxed)
      // The environment: no token, key or secret, only a few plain variables.
      const text = fs.readFileSync(path.join(start(), 'hook-env.txt'), 'utf8')
      // The runtime's environment has a provider key (the fixture's DEEPSEEK_API_KEY).
      expect(text).not.toContain('sk-contract-never-sent')
      const names = text
        .split('\n')
        .filter((line) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(line))
        .map((line) => line.slice(0, line.indexOf('=')))
      const allowed = new Set([
        'PATH',
        'HOME',
        'USER',
        'LOGNAME',
        'SHELL',
        'TERM',
        'LANG',
        'LC_ALL',
        'LC_CTYPE',
        'TZ',
        'TMPDIR',
        'TANGENT_HOOK_EVENT',
        'TANGENT_SESSION_ID',
        'TANGENT_COMMAND_ID',
        // What bash itself sets.
        'PWD',
        'SHLVL',
        '_',
        'OLDPWD',
      ])
      expect(names.filter((name) => !allowed.has(name))).toEqual([])
      expect(names).toContain('TANGENT_HOOK_EVENT')
      expect(text).toContain(`HOME=${fixture().homeDir}`)
    })

    it('keep: the kept branch and its siblings, once, in the parent’s folder', async () => {
      const parent = await api().call('session.create', {})
      await turn(parent.id, 'hello')
      userConfig({ hooks: { keep: [{ command: 'cat >> keep.jsonl' }] } })
      const explored = await api().call('session.explore', {
        sessionId: parent.id,
        branches: [{ prompt: 'one way' }, { prompt: 'another way' }],
        files: 'shared',
      })
      const [a, b] = explored.sessions.map((branch) => branch.id)
      await waitFor(async () => {
        const board = await api().call('session.board', { sessionIds: [a!, b!] })
        return board.branches.every((branch) => branch.session.status === 'idle' && branch.turns === 1)
      }, 30_000)
      const kept = await api().call('session.keep', { sessionId: b! })
      const lines = linesOf(start(), 'keep.jsonl')
      expect(lines).toEqual([
        {
          event: 'keep',
          sessionId: parent.id,
          cwd: start(),
          kept: {
            sessionId: b,
            label: 'B',
            title: explored.sessions[1]!.title,
            throughSeq: expect.any(Number),
            files: 'shared',
            applied: [],
          },
          siblings: [{ sessionId: a, label: 'A', title: explored.sessions[0]!.title, archived: true }],
        },
      ])
      expect(kept.archived).toEqual([a])
    })

    it('a preToolUse hook that exits 2 denies a bash call: its stderr is the reason the model reads and the log records', async () => {
      const command = 'echo "bash is closed today" >&2; exit 2'
      userConfig({ hooks: { preToolUse: [{ command, match: 'bash' }] } })
      const session = await api().call('session.create', {})
      expect((await turn(session.id, 'run: touch denied.txt\nwrite allowed.txt: yes')).reason).toBe(
        'completed',
      )
      expect(fs.existsSync(path.join(start(), 'denied.txt'))).toBe(false)
      expect(fs.readFileSync(path.join(start(), 'allowed.txt'), 'utf8')).toBe('yes\n')
      const [bash, write] = await toolResults(session.id)
      expect(bash).toMatchObject({ toolName: 'bash', isError: true })
      expect(bash!.output).toContain('Permission denied by a preToolUse hook')
      expect(bash!.output).toContain('bash is closed today')
      expect(write).toMatchObject({ toolName: 'write', isError: false })
      const events = await eventsOf(session.id)
      const answers = events.filter((event) => event.type === 'permission/answered')
      expect(answers.map((event) => event.data)).toEqual([
        {
          callId: expect.any(String),
          decision: 'deny',
          reason: 'bash is closed today',
          by: 'hook',
          hook: {
            command,
            source: path.join(fixture().homeDir, '.config', 'tangent', 'config.json'),
          },
        },
      ])
      // Recorded before the call's result, as any decision; nothing was asked.
      const resultSeq = events.find((event) => event.type === 'tool/result')!.seq
      expect(answers[0]!.seq).toBeLessThan(resultSeq)
      expect(events.some((event) => event.type === 'permission/requested')).toBe(false)
    })

    it('match limits a hook to one tool, by name or by glob', async () => {
      userConfig({
        hooks: {
          preToolUse: [{ command: 'cat >> pre-write.jsonl', match: 'write' }],
          postToolUse: [{ command: 'cat >> post-b.jsonl', match: 'b?s*' }],
        },
      })
      const session = await api().call('session.create', {})
      await turn(session.id, 'write one.txt: 1\nrun: echo two\nread one.txt')
      expect(linesOf(start(), 'pre-write.jsonl').map((line) => line.toolCall)).toEqual([
        expect.objectContaining({ name: 'write' }),
      ])
      expect(linesOf(start(), 'post-b.jsonl').map((line) => line.toolCall)).toEqual([
        expect.objectContaining({ name: 'bash' }),
      ])
    })

    it('a hanging hook is killed at its timeout without breaking the turn; a hanging preToolUse denies', async () => {
      const token = '37.1234'
      userConfig({
        hooks: {
          postToolUse: [{ command: `sleep ${token}`, timeoutMs: 150 }],
          turnEnd: [{ command: `sleep ${token}; touch late.txt`, timeoutMs: 150 }],
          preToolUse: [{ command: `sleep ${token}`, timeoutMs: 150, match: 'bash' }],
        },
      })
      const session = await api().call('session.create', {})
      const ran = await turn(session.id, 'write slow.txt: s\nrun: touch never.txt')
      expect(ran.reason).toBe('completed')
      expect(fs.readFileSync(path.join(start(), 'slow.txt'), 'utf8')).toBe('s\n')
      expect(fs.existsSync(path.join(start(), 'never.txt'))).toBe(false)
      const [write, bash] = await toolResults(session.id)
      expect(write).toMatchObject({ isError: false })
      expect(bash!.isError).toBe(true)
      expect(bash!.output).toContain('timed out after 150 ms')
      // The process group went with it (sandboxed: its PID namespace too).
      await waitFor(async () => processesWith(token).length === 0 || false, 5_000)
      // The session is usable at once: the next turn runs.
      expect((await turn(session.id, 'hello again')).reason).toBe('completed')
      expect(fs.existsSync(path.join(start(), 'late.txt'))).toBe(false)
    })

    it('a project’s hooks run only once the user config trusts that project', async () => {
      fs.mkdirSync(path.join(start(), '.tangent'))
      fs.writeFileSync(
        path.join(start(), '.tangent', 'config.json'),
        JSON.stringify({
          hooks: {
            sessionStart: [{ command: 'cat >> project-hooks.jsonl' }],
            preToolUse: [{ command: 'echo "the project says no" >&2; exit 2' }],
          },
        }),
      )
      userConfig({ trustProjectHooks: [path.join(start(), 'elsewhere')] })
      const untrusted = await api().call('session.create', {})
      await turn(untrusted.id, 'run: touch ran.txt')
      expect(fs.existsSync(path.join(start(), 'ran.txt'))).toBe(true)
      expect(linesOf(start(), 'project-hooks.jsonl')).toEqual([])

      userConfig({ trustProjectHooks: [start()] })
      const trusted = await api().call('session.create', {})
      expect(linesOf(start(), 'project-hooks.jsonl').map((line) => line.sessionId)).toEqual([trusted.id])
      await turn(trusted.id, 'run: touch refused.txt')
      expect(fs.existsSync(path.join(start(), 'refused.txt'))).toBe(false)
      expect((await toolResults(trusted.id))[0]!.output).toContain('the project says no')
    })

    it('a bad hooks config is a clear error: a tool call is denied naming the file and what is wrong', async () => {
      // Each kind of mistake's message: hook-config.test.ts. Here: what a session meets.
      const session = await api().call('session.create', {})
      userConfig({ hooks: { preTool: [{ command: 'true' }] } })
      await turn(session.id, 'run: touch bad-event.txt')
      expect(fs.existsSync(path.join(start(), 'bad-event.txt'))).toBe(false)
      const [result] = await toolResults(session.id)
      expect(result!.isError).toBe(true)
      expect(result!.output).toContain(
        `${path.join(fixture().homeDir, '.config', 'tangent', 'config.json')} is not valid`,
      )
      expect(result!.output).toContain('"preTool" is not a hook event')
    })
  })
}
