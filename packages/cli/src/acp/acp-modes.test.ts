import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import type { SessionSummary } from '@tangent/protocol'
import { describe, expect, it } from 'vitest'
import {
  currentModeUpdate,
  modeConfigOption,
  modeState,
  modeUpdateOfEvent,
  requestedMode,
} from './acp-modes.js'

const summary = (mode: SessionSummary['mode']) => ({ id: 's', mode }) as SessionSummary

/** The pinned SDK's own zod schemas of the unstable protocol. */
async function sdkSchemas() {
  // dist/v1/unstable/acp.js → dist/v1/schema/zod.gen.js (the package exports no path to it).
  const entry = createRequire(import.meta.url).resolve('@agentclientprotocol/sdk/unstable')
  const file = path.join(path.dirname(entry), '..', 'schema', 'zod.gen.js')
  expect(fs.existsSync(file)).toBe(true)
  return (await import(file)) as {
    zSessionModeState: { safeParse(value: unknown): { success: boolean } }
    zSessionUpdate: { safeParse(value: unknown): { success: boolean } }
    zSessionConfigOption: { safeParse(value: unknown): { success: boolean } }
  }
}

describe('ACP session modes', () => {
  it('offers the runtime’s three modes with the session’s current one, as the SDK’s schema has them', async () => {
    const state = modeState(summary('plan'))
    expect(state.currentModeId).toBe('plan')
    expect(state.availableModes.map((mode) => [mode.id, mode.name])).toEqual([
      ['ask', 'Ask before edits'],
      ['edit', 'Accept edits'],
      ['plan', 'Plan, read-only'],
    ])
    const { zSessionModeState, zSessionUpdate, zSessionConfigOption } = await sdkSchemas()
    expect(zSessionModeState.safeParse(state).success).toBe(true)
    const option = modeConfigOption(summary('ask'))
    expect(option).toMatchObject({ id: 'mode', category: 'mode', type: 'select', currentValue: 'ask' })
    expect(zSessionConfigOption.safeParse(option).success).toBe(true)
    expect(zSessionConfigOption.safeParse({ ...option, type: 'nope' }).success).toBe(false)
    expect(zSessionUpdate.safeParse(currentModeUpdate(summary('ask'))).success).toBe(true)
    // Negative controls: the validator does reject a broken shape.
    expect(zSessionModeState.safeParse({ currentModeId: 'plan' }).success).toBe(false)
    expect(zSessionUpdate.safeParse({ sessionUpdate: 'current_mode_update' }).success).toBe(false)
  })

  it('turns a logged mode change into current_mode_update, and nothing else into one', () => {
    expect(modeUpdateOfEvent({ type: 'session/mode', data: { mode: 'plan' } })).toEqual({
      sessionUpdate: 'current_mode_update',
      currentModeId: 'plan',
    })
    expect(modeUpdateOfEvent({ type: 'session/mode', data: { mode: 'yolo' } })).toBeNull()
    expect(modeUpdateOfEvent({ type: 'session/mode', data: null })).toBeNull()
    expect(modeUpdateOfEvent({ type: 'session/title', data: { mode: 'plan' } })).toBeNull()
  })

  it('takes only a mode it offered; anything else is invalid-params', () => {
    expect(requestedMode('ask')).toBe('ask')
    for (const bad of ['ASK', 'yolo', '', '__proto__', 'edit ']) {
      let caught: unknown
      try {
        requestedMode(bad)
      } catch (error) {
        caught = error
      }
      expect(TangentError.hasCode(caught, 'invalid-params'), bad).toBe(true)
    }
  })
})
