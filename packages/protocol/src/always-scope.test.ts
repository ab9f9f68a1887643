import { describe, expect, it } from 'vitest'
import { alwaysScopeOf } from './always-scope.js'

describe('alwaysScopeOf: what an always answer keeps, from the pattern as it is', () => {
  it('bash: everything, a prefix, or one exact line', () => {
    expect(alwaysScopeOf('bash', '*')).toEqual({ kind: 'everything' })
    expect(alwaysScopeOf('bash', 'git status')).toEqual({ kind: 'prefix', prefix: 'git status' })
    expect(alwaysScopeOf('bash', 'exact:rm -rf build')).toEqual({ kind: 'exact-line', line: 'rm -rf build' })
    // An exact line keeps its spaces and new lines: it is compared character for character.
    expect(alwaysScopeOf('bash', 'exact: a\nb ')).toEqual({ kind: 'exact-line', line: ' a\nb ' })
  })

  it('file tools: a glob, anywhere, or a write to .git / .tangent that asks every time', () => {
    expect(alwaysScopeOf('write', '**')).toEqual({ kind: 'everything' })
    expect(alwaysScopeOf('edit', 'src/**')).toEqual({ kind: 'paths', glob: 'src/**' })
    expect(alwaysScopeOf('write', '.git/config')).toEqual({ kind: 'asked-every-time', path: '.git/config' })
    expect(alwaysScopeOf('edit', 'sub/.TANGENT/config.json')).toEqual({
      kind: 'asked-every-time',
      path: 'sub/.TANGENT/config.json',
    })
    // Reading there is not the machinery's business: an ordinary glob.
    expect(alwaysScopeOf('read', '.git/config')).toEqual({ kind: 'paths', glob: '.git/config' })
    expect(alwaysScopeOf('write', 'a.git/config')).toEqual({ kind: 'paths', glob: 'a.git/config' })
  })

  it('other tools (MCP): every call', () => {
    expect(alwaysScopeOf('mcp__gh__issue', '**')).toEqual({ kind: 'everything' })
  })
})
