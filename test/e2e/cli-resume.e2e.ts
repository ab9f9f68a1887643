// Resuming from the command line (docs/architecture.md §12.6): ids by unique prefix in any
// case, an ambiguous prefix named with its candidates, and `--continue` picking the latest
// session of the folder the command runs in.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createSandbox,
  removeSandbox,
  type Sandbox,
  tangent,
  tangentInProcess,
  tangentJson,
} from './cli-harness.js'

interface RunOutput {
  sessionId: string
  turnEndSeq: number
}

let sandbox: Sandbox
let first: string
let second: string
let elsewhere: string
/** How many leading characters `first` and `second` share (ULIDs made close together share their time). */
let common: number

/** The shortest prefix of `id` (at least 4 characters) that no other session's id starts with. */
function uniquePrefix(id: string): string {
  const others = [first, second, elsewhere].filter((other) => other !== id)
  let length = 4
  while (others.some((other) => other.startsWith(id.slice(0, length)))) length++
  return id.slice(0, length)
}

beforeAll(async () => {
  sandbox = createSandbox()
  first = (await tangentJson<RunOutput>(sandbox, ['run', 'the first session'])).sessionId
  second = (await tangentJson<RunOutput>(sandbox, ['run', 'the second session'])).sessionId
  const other = path.join(sandbox.cwd, 'other')
  fs.mkdirSync(other)
  elsewhere = (await tangentJson<RunOutput>(sandbox, ['run', '--cwd', other, 'in another folder'])).sessionId
  common = 0
  while (first[common] === second[common]) common++
})
afterAll(() => removeSandbox(sandbox))

describe('session id prefixes', () => {
  it('show, fork and rename take a unique prefix in any case and print the whole id', async () => {
    const prefix = uniquePrefix(second).toLowerCase()
    const shown = await tangent(sandbox, ['show', prefix, '--json'])
    expect(shown.code).toBe(0)
    expect(JSON.parse(shown.stdout).session.id).toBe(second)

    const renamed = await tangentInProcess(sandbox, ['rename', prefix, 'Second, renamed'])
    expect(renamed.stdout).toBe(`Renamed ${second}: Second, renamed\n`)
    const forked = await tangentInProcess(sandbox, ['fork', prefix])
    expect(forked.code).toBe(0)
    expect(forked.stderr).toContain(`forked ${second} through seq`)
    await tangentInProcess(sandbox, ['delete', forked.stdout.trim()])
  })

  it('compact and migrate take a unique prefix too', async () => {
    // The second: compacting appends to it, and it stays the latest session of the folder.
    const prefix = uniquePrefix(second).toLowerCase()
    const compacted = await tangentInProcess(sandbox, ['compact', prefix])
    expect(compacted.stderr).toBe('')
    expect(compacted.code).toBe(0)
    expect(compacted.stdout).toMatch(new RegExp(`^Compacted ${second}: `))
    const target = path.join(path.dirname(sandbox.home), 'migrated')
    const migrated = await tangentInProcess(sandbox, ['migrate', '--to', target, prefix, '--json'])
    expect(migrated.stderr).toBe('')
    expect(JSON.parse(migrated.stdout).copied).toEqual([second])
  })

  it('an ambiguous prefix fails with one line naming the candidates and their titles', async () => {
    const result = await tangent(sandbox, ['show', first.slice(0, Math.max(common, 4))])
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    const lines = result.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^error\[ambiguous-id\]: /)
    expect(lines[0]).toContain(`${first} (the first session)`)
    expect(lines[0]).toContain(second)
  })

  it('a prefix under four characters and an unknown one are session-not-found', async () => {
    const short = await tangentInProcess(sandbox, ['show', first.slice(0, 3)])
    expect(short.code).toBe(1)
    expect(short.stderr).toMatch(/^error\[session-not-found\]: .*at least 4 characters/)
    const unknown = await tangentInProcess(sandbox, ['diff', first, 'ZZZZZZ'])
    expect(unknown.stderr).toMatch(/^error\[session-not-found\]: Session ZZZZZZ not found/)
  })
})

describe('--continue', () => {
  it('chat --continue picks the latest session of this folder, and /switch takes a prefix', async () => {
    const result = await tangentInProcess(sandbox, ['chat', '--continue'], {
      input: `picking up again\n/switch ${uniquePrefix(elsewhere)}\n`,
    })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    // The first line says where the chat starts: the second session, not the other folder's.
    expect(result.stdout.split('\n')[0]).toMatch(new RegExp(`^${second} Second, renamed`))
    expect(result.stdout).toContain(`Now in ${elsewhere}`)
    const { events } = await tangentJson<{ events: { type: string; data: unknown }[] }>(sandbox, [
      'show',
      second,
    ])
    expect(JSON.stringify(events.filter((event) => event.type === 'user/message').at(-1))).toContain(
      'picking up again',
    )
  })

  it('run --continue follows the latest activity: a turn in an older session makes it the latest', async () => {
    await tangentJson<RunOutput>(sandbox, ['run', '--session', uniquePrefix(first), 'back to the first'])
    const continued = await tangentJson<RunOutput>(sandbox, ['run', '-c', 'and again'])
    expect(continued.sessionId).toBe(first)
    // Archived sessions are not picked up.
    await tangentInProcess(sandbox, ['archive', first])
    expect((await tangentJson<RunOutput>(sandbox, ['run', '--continue', 'next'])).sessionId).toBe(second)
  })

  it('in a folder with no session it says so in one line and exits 1; with an id it is bad usage', async () => {
    const empty = path.join(sandbox.cwd, 'empty')
    fs.mkdirSync(empty)
    const none = await tangent(sandbox, ['chat', '--continue'], { cwd: empty, input: 'hello\n' })
    expect(none.code).toBe(1)
    expect(none.stderr).toMatch(/^error\[session-not-found\]: No session to continue in \S*empty: /)
    expect(none.stderr.trimEnd().split('\n')).toHaveLength(1)
    const both = await tangentInProcess(sandbox, ['chat', '--continue', second])
    expect(both.code).toBe(2)
    expect(both.stderr).toMatch(/^error\[usage\]: chat takes a session ID or --continue/)
  })
})
