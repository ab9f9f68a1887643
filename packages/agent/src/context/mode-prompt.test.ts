import { SessionStore } from '@tangent/core'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { Agent } from '../agent.js'
import { ModelRegistry } from '../model-registry.js'
import { mockTextStream } from '../testing/mock-steps.js'

describe('the mode in the system prompt', () => {
  it('tells the model of plan and ask mode from the log, per call; edit adds nothing', async () => {
    const model = new MockLanguageModelV4({
      doStream: Array.from({ length: 3 }, (_, i) => mockTextStream(`answer ${i + 1}`)),
    })
    const session = new SessionStore().create(undefined, { meta: { cwd: '/tmp' } })
    const agent = new Agent({
      session,
      models: new ModelRegistry({ env: {}, models: { 'mock:model': model } }),
      defaultModel: 'mock:model',
      maxRetries: 0,
      userInstructionsPath: null,
      system: 'BASE',
      flush: async () => {},
    })
    const systemOf = (call: number) => {
      const system = model.doStreamCalls[call]!.prompt.find((message) => message.role === 'system')
      return system?.role === 'system' ? system.content : ''
    }
    session.append('session/mode', { mode: 'plan' })
    await agent.prompt('one')
    expect(systemOf(0)).toMatch(
      /^BASE\n\nThe session is in plan mode \(read-only\): only the read, list and grep/,
    )
    session.append('session/mode', { mode: 'ask' })
    await agent.prompt('two')
    expect(systemOf(1)).toContain('The session is in ask mode')
    session.append('session/mode', { mode: 'edit' })
    await agent.prompt('three')
    expect(systemOf(2)).toBe('BASE')
  })
})
