// Text that did not come from Tangent reaches a terminal escaped (docs/architecture.md §9): a
// file holding escape sequences is read by the demo model through the built `tangent`, and what
// `run`, `show` and `sessions` print holds no control character but newline (the tree not even
// a tab), while `show --json` still gives the exact original text.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSandbox, removeSandbox, type Sandbox, tangent, tangentInProcess } from './cli-harness.js'

/** What QA put in a file: a window title (OSC … BEL), a screen clear (CSI), the 8-bit CSI, DEL, CR. */
const evilContent =
  'hello \x1b]0;PWNED-TITLE\x07 \x1b[2J world \x9b31mred\x7f\r\nfake: tangent says ok \x1b[1A\x1b[K\n'
/** A title with a newline, ESC, a tab and a right-to-left override. */
const evilTitle = 'a\nb \x1b[31mRED\t\u202eX'

/** The control characters (C0, DEL, C1) in `text` a terminal could act on, newline aside, as U+ codes. */
function controlsIn(text: string): string[] {
  const found: string[] = []
  for (const character of text) {
    const code = character.charCodeAt(0)
    if (character !== '\n' && (code < 0x20 || (code >= 0x7f && code <= 0x9f)))
      found.push(`U+${code.toString(16).padStart(4, '0')}`)
  }
  return found
}

let sandbox: Sandbox
let sessionId: string
beforeAll(() => {
  sandbox = createSandbox()
  fs.writeFileSync(path.join(sandbox.cwd, 'evil.txt'), evilContent)
})
afterAll(() => removeSandbox(sandbox))

interface Shown {
  session: { id: string; title: string }
  events: { type: string; data: Record<string, unknown> }[]
}

describe('untrusted text at the terminal', () => {
  it('run: the tool line, the tool output and the streamed answer carry the sequences as text', async () => {
    const prompt = 'read evil.txt\nwrite \x1b[31mred.txt: \x1b]0;T\x07'
    const run = await tangent(sandbox, ['run', prompt])
    expect(run.code, run.stderr).toBe(0)
    expect(controlsIn(run.stdout)).toEqual([])
    expect(controlsIn(run.stderr)).toEqual([])
    // Shown, escaped: the answer quotes the file's lines, the tool lines name the path.
    expect(run.stdout).toContain('hello \\x1b]0;PWNED-TITLE\\x07 \\x1b[2J world \\x9b31mred\\x7f\\r')
    expect(run.stdout).toContain('fake: tangent says ok \\x1b[1A\\x1b[K')
    expect(run.stdout).toContain('▸ write \\x1b[31mred.txt')
    sessionId = /session (\S+) /.exec(run.stderr)![1]!
  })

  it('show: the transcript escapes the message, the tool call, its output and the answer', async () => {
    const show = await tangent(sandbox, ['show', sessionId])
    expect(show.code, show.stderr).toBe(0)
    expect(controlsIn(show.stdout)).toEqual([])
    expect(show.stdout).toMatch(/^\s*\d+ {2}you {8}read evil\.txt$/m)
    expect(show.stdout).toMatch(/^write \\x1b\[31mred\.txt: \\x1b\]0;T\\x07$/m)
    expect(show.stdout).toMatch(/tool call {2}write \\x1b\[31mred\.txt$/m)
    expect(show.stdout).toContain('result     ✓ hello \\x1b]0;PWNED-TITLE\\x07 \\x1b[2J world')
  })

  it('sessions: a title with a newline, ESC, a tab and a bidi override stays one escaped line', async () => {
    const rename = await tangent(sandbox, ['rename', sessionId, evilTitle])
    expect(rename.code, rename.stderr).toBe(0)
    expect(rename.stdout).toBe(`Renamed ${sessionId}: a\\nb \\x1b[31mRED\\t\\u202eX\n`)
    const fork = await tangentInProcess(sandbox, ['fork', sessionId])
    expect(fork.code, fork.stderr).toBe(0)
    const list = await tangent(sandbox, ['ls'])
    expect(list.code, list.stderr).toBe(0)
    const lines = list.stdout.replace(/\n$/, '').split('\n')
    // One line per session: the parent and its fork.
    expect(lines).toHaveLength(2)
    expect(lines[0]).toBe(
      `${sessionId}  a\\nb \\x1b[31mRED\\t\\u202eX  ${lines[0]!.split('  ').slice(2).join('  ')}`,
    )
    for (const line of lines) {
      expect(controlsIn(line)).toEqual([])
      expect(line).not.toMatch(/[\t\u202a-\u202e\u2066-\u2069]/)
    }
  })

  it('show --json still holds the exact original text, and is the JSON of what it holds', async () => {
    const show = await tangent(sandbox, ['show', sessionId, '--json'])
    expect(show.code, show.stderr).toBe(0)
    const shown = JSON.parse(show.stdout) as Shown
    expect(show.stdout).toBe(`${JSON.stringify(shown)}\n`)
    expect(shown.session.title).toBe(evilTitle)
    const user = shown.events.find((event) => event.type === 'user/message')!
    expect(user.data.content).toEqual([
      { type: 'text', text: 'read evil.txt\nwrite \x1b[31mred.txt: \x1b]0;T\x07' },
    ])
    const read = shown.events.find((event) => event.type === 'tool/result' && event.data.toolName === 'read')!
    expect(read.data.output).toBe(evilContent)
  })

  it('the other views of the same session hold no control character either', async () => {
    const sessions = JSON.parse((await tangentInProcess(sandbox, ['ls', '--json'])).stdout) as {
      id: string
    }[]
    const fork = sessions.find((session) => session.id !== sessionId)!.id
    for (const args of [
      ['snapshots', sessionId],
      ['compare', sessionId, fork],
      ['diff', sessionId, fork],
      ['show', fork],
    ]) {
      const result = await tangentInProcess(sandbox, args)
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0)
      expect(controlsIn(result.stdout), args.join(' ')).toEqual([])
      expect(controlsIn(result.stderr), args.join(' ')).toEqual([])
    }
  })
})
