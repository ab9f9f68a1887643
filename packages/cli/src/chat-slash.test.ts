import { describe, expect, it } from 'vitest'
import { chatHelp, parseSlashCommand, slashCommands } from './chat-slash.js'

describe('parseSlashCommand', () => {
  it('parses each command and its arguments', () => {
    expect(parseSlashCommand('/fork')).toEqual({ name: 'fork' })
    expect(parseSlashCommand('/fork 12')).toEqual({ name: 'fork', seq: 12 })
    expect(parseSlashCommand('/tree')).toEqual({ name: 'tree' })
    expect(parseSlashCommand('/switch 01ABC')).toEqual({ name: 'switch', id: '01ABC' })
    expect(parseSlashCommand('/model demo:scripted')).toEqual({ name: 'model', model: 'demo:scripted' })
    expect(parseSlashCommand('/compact')).toEqual({ name: 'compact' })
    expect(parseSlashCommand('/image my shot.png')).toEqual({ name: 'image', file: 'my shot.png' })
    expect(parseSlashCommand('/mode')).toEqual({ name: 'mode' })
    expect(parseSlashCommand('/mode plan')).toEqual({ name: 'mode', mode: 'plan' })
    expect(parseSlashCommand('/mode ASK')).toEqual({ name: 'mode', mode: 'ask' })
    expect(parseSlashCommand('/quit')).toEqual({ name: 'exit' })
    expect(parseSlashCommand('/show')).toEqual({ name: 'show' })
    expect(parseSlashCommand('/show 01AB')).toEqual({ name: 'show', id: '01AB' })
    expect(parseSlashCommand('/restore 3')).toEqual({ name: 'restore', seq: 3 })
    expect(parseSlashCommand('/undo')).toEqual({ name: 'undo' })
    expect(parseSlashCommand('/undo 9')).toEqual({ name: 'undo', seq: 9 })
    expect(parseSlashCommand('/diff 01AB')).toEqual({ name: 'diff', id: '01AB' })
    expect(parseSlashCommand('/compare 01AB')).toEqual({ name: 'diff', id: '01AB' })
    expect(parseSlashCommand('/keep 01CD')).toEqual({ name: 'keep', id: '01CD' })
    expect(parseSlashCommand('/explore write a.txt: A |  write b.txt: B ')).toEqual({
      name: 'explore',
      prompts: ['write a.txt: A', 'write b.txt: B'],
    })
  })

  it('says what is wrong instead of throwing', () => {
    expect(parseSlashCommand('/fork x')).toEqual({ error: 'expected a non-negative integer seq' })
    expect(parseSlashCommand('/switch')).toEqual({ error: 'usage: /switch ID' })
    expect(parseSlashCommand('/image  ')).toEqual({ error: 'usage: /image FILE' })
    expect(parseSlashCommand('/restore')).toEqual({ error: 'usage: /restore SEQ' })
    expect(parseSlashCommand('/diff')).toEqual({ error: 'usage: /diff ID' })
    expect(parseSlashCommand('/compare')).toEqual({ error: 'usage: /compare ID' })
    expect(parseSlashCommand('/explore only one')).toEqual({
      error: 'usage: /explore PROMPT | PROMPT [| PROMPT…] (two to eight prompts, split by |)',
    })
    expect(parseSlashCommand('/mode yolo')).toEqual({ error: 'usage: /mode [ask|edit|plan]' })
    expect(parseSlashCommand('/mode __proto__')).toEqual({ error: 'usage: /mode [ask|edit|plan]' })
    expect(parseSlashCommand('/nope')).toEqual({ error: 'Unknown command /nope. Type /help for the list.' })
    expect(parseSlashCommand('/constructor')).toEqual({
      error: 'Unknown command /constructor. Type /help for the list.',
    })
  })
})

describe('chatHelp', () => {
  it('is one aligned line per command, from the one list of definitions', () => {
    expect(chatHelp.length).toBe(slashCommands.length)
    expect(chatHelp[0]).toBe(
      '/fork [seq]   branch after the turn holding seq (default: the last completed turn) and switch to it',
    )
    expect(chatHelp).toContain(
      '/explore P1 | P2 [| P3…]  try several ways after the last turn, one branch per prompt, each in its own worktree',
    )
    expect(chatHelp).toContain(
      '/diff ID      what differs between this session and ID: where they diverged, turns and files (also /compare ID)',
    )
    // Every command it lists parses (with an argument where it needs one).
    for (const command of slashCommands) {
      const line =
        command.name === 'explore'
          ? '/explore a | b'
          : command.name === 'mode'
            ? '/mode plan'
            : `${command.usage.split(' ')[0]} 1`
      expect(parseSlashCommand(line), line).toMatchObject({ name: command.name })
    }
  })
})
