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
  })

  it('says what is wrong instead of throwing', () => {
    expect(parseSlashCommand('/fork x')).toEqual({ error: 'expected a non-negative integer seq' })
    expect(parseSlashCommand('/switch')).toEqual({ error: 'usage: /switch ID' })
    expect(parseSlashCommand('/nope')).toEqual({ error: 'Unknown command /nope. Type /help for the list.' })
  })
})
