import { describe, expect, it } from 'vitest'
import { parseSlashCommand } from './chat-slash.js'

describe('parseSlashCommand', () => {
  it('parses each command and its arguments', () => {
    expect(parseSlashCommand('/fork')).toEqual({ name: 'fork' })
    expect(parseSlashCommand('/fork 12')).toEqual({ name: 'fork', seq: 12 })
    expect(parseSlashCommand('/tree')).toEqual({ name: 'tree' })
    expect(parseSlashCommand('/switch 01ABC')).toEqual({ name: 'switch', id: '01ABC' })
    expect(parseSlashCommand('/model demo:scripted')).toEqual({ name: 'model', model: 'demo:scripted' })
    expect(parseSlashCommand('/compact')).toEqual({ name: 'compact' })
    expect(parseSlashCommand('/quit')).toEqual({ name: 'exit' })
    expect(parseSlashCommand('/show')).toEqual({ name: 'show' })
    expect(parseSlashCommand('/show 01AB')).toEqual({ name: 'show', id: '01AB' })
    expect(parseSlashCommand('/restore 3')).toEqual({ name: 'restore', seq: 3 })
    expect(parseSlashCommand('/undo')).toEqual({ name: 'undo' })
    expect(parseSlashCommand('/undo 9')).toEqual({ name: 'undo', seq: 9 })
    expect(parseSlashCommand('/diff 01AB')).toEqual({ name: 'diff', id: '01AB' })
    expect(parseSlashCommand('/keep 01CD')).toEqual({ name: 'keep', id: '01CD' })
    expect(parseSlashCommand('/explore write a.txt: A |  write b.txt: B ')).toEqual({
      name: 'explore',
      prompts: ['write a.txt: A', 'write b.txt: B'],
    })
  })

  it('says what is wrong instead of throwing', () => {
    expect(parseSlashCommand('/fork x')).toEqual({ error: 'expected a non-negative integer seq' })
    expect(parseSlashCommand('/switch')).toEqual({ error: 'usage: /switch ID' })
    expect(parseSlashCommand('/restore')).toEqual({ error: 'usage: /restore SEQ' })
    expect(parseSlashCommand('/diff')).toEqual({ error: 'usage: /diff ID' })
    expect(parseSlashCommand('/explore only one')).toEqual({
      error: 'usage: /explore PROMPT | PROMPT [| PROMPT…] (two to eight prompts, split by |)',
    })
    expect(parseSlashCommand('/nope')).toEqual({ error: 'Unknown command /nope. Type /help for the list.' })
  })
})
