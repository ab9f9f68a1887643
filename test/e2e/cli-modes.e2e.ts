// Session modes from the CLI (docs/architecture.md §12.1): `tangent mode ID [MODE]`, `tangent run
// --mode`, chat's `/mode`; `show` and `sessions` say the mode. The offline demo model runs freely
// by default, so what it may do here is the mode's doing.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createSandbox, removeSandbox, type Sandbox, tangent, tangentJson } from './cli-harness.js'

let sandbox: Sandbox
beforeEach(() => {
  sandbox = createSandbox()
})
afterEach(() => removeSandbox(sandbox))

interface Summary {
  id: string
  mode: string
}
interface Shown {
  session: Summary
  events: { type: string; data: Record<string, unknown> }[]
}

describe('session modes in the CLI', () => {
  it('run --mode plan refuses the write; mode shows and sets it; show and sessions say it; ask makes the demo model ask', async () => {
    const planned = await tangent(sandbox, ['run', '--mode', 'plan', '--json', 'write a.txt: x'])
    expect(planned.code).toBe(0)
    const { sessionId } = JSON.parse(planned.stdout) as { sessionId: string }
    expect(fs.existsSync(path.join(sandbox.cwd, 'a.txt'))).toBe(false)
    const shown = await tangentJson<Shown>(sandbox, ['show', sessionId])
    expect(shown.session.mode).toBe('plan')
    const result = shown.events.find((event) => event.type === 'tool/result')!.data
    expect(result.isError).toBe(true)
    expect(String(result.output)).toContain('plan mode')
    expect((await tangentJson<Summary[]>(sandbox, ['sessions'])).map((s) => [s.id, s.mode])).toEqual([
      [sessionId, 'plan'],
    ])
    const asJson = await tangentJson<{
      sessionId: string
      mode: string
      modes: { id: string; name: string }[]
    }>(sandbox, ['mode', sessionId])
    expect(asJson).toMatchObject({ sessionId, mode: 'plan' })
    expect(asJson.modes.map((mode) => mode.id)).toEqual(['ask', 'edit', 'plan'])
    const text = await tangent(sandbox, ['mode', sessionId.slice(0, 8)])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(`Mode of ${sessionId}: plan (Plan, read-only)`)
    expect(text.stdout).toMatch(/^\* plan {2}Plan, read-only: /m)
    expect(text.stdout).toMatch(/^ {2}edit {2}Accept edits: /m)
    expect((await tangent(sandbox, ['show', sessionId])).stdout).toMatch(/mode +plan/)

    // Ask: the demo model's write now asks, and with no terminal to ask it is denied.
    const set = await tangent(sandbox, ['mode', sessionId, 'ask'])
    expect(set.stdout).toBe(`Mode of ${sessionId}: ask (Ask before edits)\n`)
    const asked = await tangent(sandbox, ['run', '--session', sessionId, 'write b.txt: y'])
    expect(asked.code).toBe(0)
    expect(asked.stderr).toContain('tangent: denied write: b.txt')
    expect(fs.existsSync(path.join(sandbox.cwd, 'b.txt'))).toBe(false)
    const yes = await tangent(sandbox, ['run', '--session', sessionId, '--yes', 'write b.txt: y'])
    expect(yes.code).toBe(0)
    expect(fs.readFileSync(path.join(sandbox.cwd, 'b.txt'), 'utf8')).toBe('y\n')
    // --mode on an existing session changes it for good.
    await tangent(sandbox, ['run', '--session', sessionId, '--mode', 'EDIT', 'write c.txt: z'])
    expect(fs.readFileSync(path.join(sandbox.cwd, 'c.txt'), 'utf8')).toBe('z\n')
    expect((await tangentJson<Shown>(sandbox, ['show', sessionId])).session.mode).toBe('edit')
  })

  it('a mode that does not exist is a usage error that changes nothing and makes no session', async () => {
    const badRun = await tangent(sandbox, ['run', '--mode', 'yolo', 'write a.txt: x'])
    expect(badRun.code).toBe(2)
    expect(badRun.stderr).toContain('unknown mode "yolo"; the modes are ask, edit, plan')
    expect(await tangentJson<Summary[]>(sandbox, ['sessions'])).toEqual([])
    const made = await tangent(sandbox, ['run', '--json', 'hello'])
    const { sessionId } = JSON.parse(made.stdout) as { sessionId: string }
    for (const bad of ['yolo', '__proto__', 'plan;rm']) {
      const refused = await tangent(sandbox, ['mode', sessionId, bad])
      expect(refused.code, bad).toBe(2)
      expect(refused.stderr).toContain('the modes are ask, edit, plan')
    }
    expect((await tangentJson<Shown>(sandbox, ['show', sessionId])).events.map((e) => e.type)).not.toContain(
      'session/mode',
    )
    expect((await tangent(sandbox, ['mode', 'nosuchsession', 'plan'])).code).toBe(1)
  })

  it('chat: /mode before the first message sets the new session’s mode; /mode lists the modes', async () => {
    const result = await tangent(sandbox, ['chat'], {
      input: '/mode plan\nwrite d.txt: x\n/mode\n/mode edit\nwrite e.txt: y\n/mode nope\n',
    })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('Mode: plan (Plan, read-only)')
    expect(result.stdout).toMatch(/^\* plan {2}Plan, read-only: /m)
    expect(result.stdout).toContain('Mode: edit (Accept edits)')
    expect(result.stdout).toContain('usage: /mode [ask|edit|plan]')
    expect(fs.existsSync(path.join(sandbox.cwd, 'd.txt'))).toBe(false)
    expect(fs.readFileSync(path.join(sandbox.cwd, 'e.txt'), 'utf8')).toBe('y\n')
    const [session] = await tangentJson<Summary[]>(sandbox, ['sessions'])
    expect(session!.mode).toBe('edit')
  })
})
