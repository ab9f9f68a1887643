import { describe, expect, it } from 'vitest'
import { type PathGuard, realPathCheck } from './real-path-check.js'

describe('realPathCheck', () => {
  it('accepts the decided path, and beneath it only what list and grep walk; then asks the guard', async () => {
    const asked: string[] = []
    const guard: PathGuard = async ({ toolName, path, access }) => {
      asked.push(`${toolName} ${access} ${path}`)
      if (path.endsWith('.pem')) throw new Error('denied by rule')
    }
    const check = realPathCheck('grep', '/project', 'src', guard)!
    await check('src', 'read')
    await check('src/a.ts', 'read', true)
    await expect(check('src/a.ts', 'read')).rejects.toThrow(/now leads to src\/a.ts, not to src/)
    await expect(check('srcx/a.ts', 'read', true)).rejects.toThrow(/not to src/)
    await expect(check('src/k.pem', 'read', true)).rejects.toThrow('denied by rule')
    expect(asked).toEqual(['grep read src', 'grep read src/a.ts', 'grep read src/k.pem'])
    await realPathCheck('grep', '/project', '.', guard)!('lib/b.ts', 'read', true)
    expect(realPathCheck('write', '/project', undefined, undefined)).toBe(undefined)
  })
})
