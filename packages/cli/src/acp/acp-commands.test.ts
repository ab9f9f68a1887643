// The editor's slash commands against a real runtime in this process (the offline demo model):
// what is offered, what is a command and what a prompt, what each command does, and bad input.
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type LocalBackend, openLocalBackend } from '../local-backend.test-helper.js'
import { asCodeBlock, availableCommands, availableCommandsUpdate, runAcpCommand } from './acp-commands.js'

let local: LocalBackend
beforeEach(async () => {
  local = await openLocalBackend()
})
afterEach(async () => {
  await local.close()
})

/** The plain text inside the answer's code block (asserting it is one). */
function body(result: { text: string } | null): string {
  expect(result).not.toBeNull()
  const match = /^(`{3,})text\n([\s\S]*)\n\1$/.exec(result!.text)
  expect(match, result!.text).not.toBeNull()
  return match![2]!
}

/** A session with two turns: one.txt written in the first, two.txt in the second. */
async function twoTurns() {
  const session = await local.backend.createSession({ cwd: local.project })
  const first = await local.turn(session.id, 'write one.txt: 1')
  const second = await local.turn(session.id, 'write two.txt: 2')
  return { id: session.id, first, second }
}

/** A definition of the pinned SDK's unstable JSON schema (`$defs`). */
function schemaDefinition(name: string): {
  properties: Record<string, unknown>
  required: string[]
  oneOf?: { properties: { sessionUpdate?: { const?: string } } }[]
} {
  const entry = createRequire(import.meta.url).resolve('@agentclientprotocol/sdk/unstable')
  const root = entry.slice(0, entry.lastIndexOf(`${path.sep}dist${path.sep}`))
  const schema = JSON.parse(fs.readFileSync(path.join(root, 'schema', 'v1', 'schema.unstable.json'), 'utf8'))
  return schema.$defs[name]
}

/** The object has every property the schema requires and none it does not define. */
function expectFits(value: object, definition: ReturnType<typeof schemaDefinition>) {
  for (const key of definition.required) expect(value).toHaveProperty(key)
  for (const key of Object.keys(value)) expect(Object.keys(definition.properties)).toContain(key)
}

describe('availableCommands', () => {
  it("fits the pinned SDK's schema of AvailableCommand, and of the update that carries them", () => {
    for (const command of availableCommands()) {
      expectFits(command, schemaDefinition('AvailableCommand'))
      expect(typeof command.description).toBe('string')
      if (command.input) {
        expectFits(command.input, schemaDefinition('UnstructuredCommandInput'))
        expect(typeof (command.input as { hint: unknown }).hint).toBe('string')
      }
    }
    const update = availableCommandsUpdate()
    const { sessionUpdate, ...rest } = update as { sessionUpdate: string }
    expect(
      schemaDefinition('SessionUpdate').oneOf?.map((variant) => variant.properties.sessionUpdate?.const),
    ).toContain(sessionUpdate)
    expect(sessionUpdate).toBe('available_commands_update')
    expectFits(rest, schemaDefinition('AvailableCommandsUpdate'))
    expect(rest).toEqual({ availableCommands: availableCommands() })
  })

  it("offers the session commands under the editor's names, with a hint where they take input", () => {
    const commands = availableCommands()
    expect(commands.map((command) => command.name)).toEqual([
      'fork',
      'restore',
      'undo',
      'compare',
      'explore',
      'keep',
      'compact',
    ])
    for (const command of commands) {
      expect(Object.keys(command).sort()).toEqual(
        command.name === 'compact' ? ['description', 'name'] : ['description', 'input', 'name'],
      )
      expect(command.description).toMatch(/^[A-Z].{20,}/)
      if (command.input) expect(command.input.hint).not.toBe('')
    }
    const byName = Object.fromEntries(commands.map((command) => [command.name, command]))
    expect(byName.fork!.description).not.toMatch(/switch/)
    expect(byName.compare!.description).toMatch(/^What differs between this session and ID/)
    expect(byName.explore!.input).toEqual({ hint: 'PROMPT | PROMPT [| PROMPT…]' })
  })
})

describe('runAcpCommand', () => {
  it('is null for a prompt that is not one of the commands, and does nothing', async () => {
    const { id } = await twoTurns()
    const before = await local.backend.getSession(id)
    for (const text of [
      '/etc/passwd is odd',
      'please /fork this',
      ' /fork',
      '/forked',
      '/Fork',
      '/fork/1',
      '/diff x',
      '/help',
      '/tree',
      '/switch x',
      '/',
      '',
    ])
      expect(await runAcpCommand(local.backend, id, text), text).toBeNull()
    expect((await local.backend.listSessions({ includeArchived: true })).length).toBe(1)
    expect((await local.backend.getSession(id)).events.length).toBe(before.events.length)
  })

  it('forks after the last turn or the turn holding a seq, naming the new session', async () => {
    const { id, first, second } = await twoTurns()
    const last = await runAcpCommand(local.backend, id, '/fork')
    const child = await local.backend.getSession(last!.sessionId!)
    expect(child.session.parentSession).toBe(id)
    expect(child.session.forkedAt).toBe(second.turnEndSeq)
    expect(last!.title).toBe(child.session.title)
    expect(body(last)).toBe(
      `Forked ${id} through seq ${second.turnEndSeq} into ${child.session.id} ${child.session.title}. This session stays as it was; open ${child.session.id} to go on from seq ${second.turnEndSeq}.`,
    )
    // A seq inside the first turn: the fork holds the whole of that turn.
    const earlier = await runAcpCommand(local.backend, id, `/fork ${first.turnStartSeq + 1}\n`)
    expect((await local.backend.getSession(earlier!.sessionId!)).session.forkedAt).toBe(first.turnEndSeq)
  })

  it('answers a bad seq with the reason, and makes nothing', async () => {
    const { id } = await twoTurns()
    const answers = new Map<string, string>()
    for (const text of ['/fork 9999', '/fork -1', '/fork x', '/fork 99999999999999999999'])
      answers.set(text, body(await runAcpCommand(local.backend, id, text)))
    expect(answers.get('/fork 9999')).toMatch(/^error\[invalid-boundary\]: Seq 9999 is past the end/)
    expect(answers.get('/fork -1')).toBe('expected a non-negative integer seq')
    expect(answers.get('/fork x')).toBe('expected a non-negative integer seq')
    expect(answers.get('/fork 99999999999999999999')).toMatch(/^error\[invalid-params\]: .*atSeq/)
    expect((await local.backend.listSessions({ includeArchived: true })).length).toBe(1)
  })

  it('restores the files to a seq and undoes it', async () => {
    const { id, first } = await twoTurns()
    const two = path.join(local.project, 'two.txt')
    const restored = body(await runAcpCommand(local.backend, id, `/restore ${first.turnEndSeq}`))
    const undoSeq = Number(/\(undo with \/undo (\d+)\)$/.exec(restored)?.[1])
    expect(restored).toBe(
      `Restored 1 path(s) to seq ${first.turnEndSeq}: two.txt (undo with /undo ${undoSeq})`,
    )
    expect(fs.existsSync(two)).toBe(false)
    expect(body(await runAcpCommand(local.backend, id, `/undo ${undoSeq}`))).toBe(
      'Undid the restore: put back 1 path(s): two.txt',
    )
    expect(fs.readFileSync(two, 'utf8')).toBe('2\n')
    expect(body(await runAcpCommand(local.backend, id, `/restore ${first.turnEndSeq}`))).toMatch(
      /^Restored 1/,
    )
    // Without a seq: the latest restore.
    expect(body(await runAcpCommand(local.backend, id, '/undo'))).toMatch(/^Undid the restore/)
    expect(fs.existsSync(two)).toBe(true)
  })

  it('answers a bad restore or undo with the reason, and writes nothing', async () => {
    const { id } = await twoTurns()
    const { events } = await local.backend.getSession(id)
    expect(body(await runAcpCommand(local.backend, id, '/restore'))).toBe('usage: /restore SEQ')
    expect(body(await runAcpCommand(local.backend, id, '/restore 9999'))).toMatch(
      /^error\[invalid-params\]: Session \S+ has no seq 9999/,
    )
    expect(body(await runAcpCommand(local.backend, id, '/undo 1'))).toMatch(
      /^error\[not-a-restore\]: Seq 1 of session/,
    )
    expect(body(await runAcpCommand(local.backend, id, '/undo'))).toMatch(/^error\[not-a-restore\]/)
    expect((await local.backend.getSession(id)).events.length).toBe(events.length)
    expect(fs.readFileSync(path.join(local.project, 'two.txt'), 'utf8')).toBe('2\n')
  })

  it('compacts once, and says there is nothing new to compact after that', async () => {
    const { id, second } = await twoTurns()
    expect(body(await runAcpCommand(local.backend, id, '/compact'))).toMatch(
      new RegExp(
        `^Compacted ${id}: events 0–${second.turnEndSeq} summarised by demo:scripted at seq ${second.turnEndSeq + 1} .*Forks before seq ${second.turnEndSeq + 1} keep the full history\\.$`,
      ),
    )
    expect(body(await runAcpCommand(local.backend, id, '/compact now'))).toMatch(
      /^error\[nothing-to-compact\]/,
    )
  })

  it('explores two ways, compares a branch, keeps the other into this session and undoes the keep', async () => {
    const { id } = await twoTurns()
    const answer = await runAcpCommand(local.backend, id, '/explore write a.txt: A | write b.txt: B')
    const explored = body(answer)
    const match =
      /^Trying 2 ways from (\S+) .*\n {2}A (\S+) …a\.txt: A\n {2}B (\S+) …b\.txt: B\n\/compare ID/.exec(
        explored,
      )
    expect(match, explored).not.toBeNull()
    const [, from, a, b] = match!
    expect(from).toBe(id)
    expect(answer!.branches).toEqual([
      { label: 'A', sessionId: a, title: '…a.txt: A' },
      { label: 'B', sessionId: b, title: '…b.txt: B' },
    ])
    expect(answer!.sessionId).toBeUndefined()
    await local.idle([a!, b!])

    const compared = body(await runAcpCommand(local.backend, id, `/compare ${a!.slice(0, 20)}`))
    expect(compared).toContain(`${id}: 0 turn(s) since · ${a}: 1 turn(s) since`)
    expect(compared).toMatch(/^Files \(1\):\n {2}a\.txt \+1 −0 added$/m)

    const kept = body(await runAcpCommand(local.backend, id, `/keep ${b}`))
    expect(kept).toMatch(new RegExp(`^kept ${b} into ${id} \\(branch/kept at seq \\d+\\)\\n`))
    expect(kept).toContain(`archived: ${a}`)
    const undo = /undo with: (\/undo \d+)$/m.exec(kept)?.[1]
    expect(undo, kept).toBeDefined()
    expect(fs.readFileSync(path.join(local.project, 'b.txt'), 'utf8')).toBe('B\n')
    expect(body(await runAcpCommand(local.backend, id, undo!))).toBe(
      'Undid the restore: put back 1 path(s): b.txt',
    )
    expect(fs.existsSync(path.join(local.project, 'b.txt'))).toBe(false)
  }, 60_000)

  it('answers /explore with fewer than two prompts, or an empty one, with its usage', async () => {
    const { id } = await twoTurns()
    for (const text of ['/explore', '/explore only one', '/explore a |', '/explore a || b'])
      expect(body(await runAcpCommand(local.backend, id, text)), text).toMatch(
        /^usage: \/explore PROMPT \| PROMPT/,
      )
    expect(
      body(
        await runAcpCommand(
          local.backend,
          id,
          `/explore ${Array.from({ length: 9 }, () => 'x').join(' | ')}`,
        ),
      ),
    ).toBe('at most eight branches')
    expect((await local.backend.listSessions({ includeArchived: true })).length).toBe(1)
  })

  it('answers unknown and hostile ids with the reason, running and writing nothing', async () => {
    const { id } = await twoTurns()
    expect(body(await runAcpCommand(local.backend, id, '/compare'))).toBe('usage: /compare ID')
    expect(body(await runAcpCommand(local.backend, id, '/keep'))).toBe('usage: /keep ID')
    expect(body(await runAcpCommand(local.backend, id, '/keep 01NOSUCHSESSION'))).toMatch(
      /^error\[session-not-found\]: Session 01NOSUCHSESSION not found/,
    )
    for (const hostile of [
      '../../etc/passwd',
      '$(touch pwned)',
      '`touch pwned`',
      '\u001b[2J\u001b]0;title\u0007',
      '![x](http://127.0.0.1:9/leak.png)',
      'a```b',
      'x'.repeat(10_000),
    ]) {
      for (const command of ['/keep', '/compare']) {
        const answer = body(await runAcpCommand(local.backend, id, `${command} ${hostile}`))
        expect(answer, `${command} ${hostile}`).toMatch(/^error\[(invalid-params|session-not-found)\]: /)
        // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may reach the editor
        expect(answer).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/)
      }
    }
    expect(fs.existsSync(path.join(local.project, 'pwned'))).toBe(false)
    // A keep of a session that is no branch.
    expect(body(await runAcpCommand(local.backend, id, `/keep ${id}`))).toMatch(/^error\[/)
    // The editor's own session id unknown.
    expect(body(await runAcpCommand(local.backend, 'nope', '/compact'))).toMatch(
      /^error\[session-not-found\]/,
    )
    expect((await local.backend.listSessions({ includeArchived: true })).length).toBe(1)
  })

  it('keeps a title with Markdown and backticks inside the code block', async () => {
    const { id } = await twoTurns()
    await local.backend.rename(id, '![x](http://127.0.0.1:9/leak.png) ```` done\nnext line')
    const forked = await runAcpCommand(local.backend, id, '/fork')
    expect(forked!.title).toContain('![x]')
    // The fence is longer than the title's run of four backticks; the newline stays escaped.
    expect(forked!.text).toMatch(/^`{5}text\n[^\n]*\n`{5}$/)
    expect(body(forked)).toContain('![x](http://127.0.0.1:9/leak.png) ```` done\\nnext line')
  })

  it('refuses a command while a turn runs in the session, and the turn goes on', async () => {
    await local.close()
    local = await openLocalBackend({ demoDelayMs: 40 })
    const { id, first } = await twoTurns()
    const running = local.turn(id, `please ${'stream this slowly '.repeat(10)}`)
    const deadline = Date.now() + 10_000
    while ((await local.backend.getSession(id, Number.MAX_SAFE_INTEGER)).session.status !== 'running') {
      if (Date.now() > deadline) throw new Error('the turn never started')
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(body(await runAcpCommand(local.backend, id, `/restore ${first.turnEndSeq}`))).toMatch(
      /^error\[session-busy\]/,
    )
    expect(fs.existsSync(path.join(local.project, 'two.txt'))).toBe(true)
    expect((await running).reason).toBe('completed')
  }, 30_000)
})

describe('asCodeBlock', () => {
  it('fences the text with more backticks than any run in it', () => {
    expect(asCodeBlock('plain')).toBe('```text\nplain\n```')
    expect(asCodeBlock('a ``` b ````` c')).toBe('``````text\na ``` b ````` c\n``````')
  })
})
