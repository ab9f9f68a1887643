import { describe, expect, it } from 'vitest'
import { sandboxText } from './sandbox-status.js'

describe('the bash sandbox status', () => {
  it('says in words whether bash is sandboxed, and why not', () => {
    expect(sandboxText({ bash: 'sandboxed', mode: 'auto', kind: 'bubblewrap' })).toBe(
      'bash runs sandboxed (bubblewrap)',
    )
    expect(sandboxText({ bash: 'unsandboxed', mode: 'auto', reason: 'bwrap is not installed' })).toBe(
      'bash runs NOT sandboxed: bwrap is not installed',
    )
    expect(sandboxText({ bash: 'refused', mode: 'required', reason: 'no bwrap' })).toBe(
      'bash is refused, no sandbox: no bwrap',
    )
  })
})
