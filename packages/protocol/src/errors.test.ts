import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ErrorDataCode, errorCodeList, errorCodes, isErrorCode, RpcError, rpcErrorCodes } from './index.js'

const packagesDir = fileURLToPath(new URL('../../', import.meta.url))

/** Every non-test source file of every package (`packages/*\/src/**\/*.ts(x)`). */
function sourceFiles(): string[] {
  const files: string[] = []
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) files.push(full)
    }
  }
  for (const pkg of fs.readdirSync(packagesDir)) {
    const src = path.join(packagesDir, pkg, 'src')
    if (fs.existsSync(src)) walk(src)
  }
  return files
}

/**
 * String literals used as error codes: thrown (`new TangentError('x'`), sent (`rpcError('x'`),
 * or compared (`hasCode(e, 'x')`, `RpcError.is(e, 'x')`, `data.code === 'x'`, `dataCode === 'x'`).
 */
const codeUses = [
  /new TangentError\(\s*'([^']+)'/g,
  /\brpcError\(\s*'([^']+)'/g,
  /\bhasCode\([^,()]+,\s*'([^']+)'/g,
  /RpcError\.is\([^,()]+,\s*'([^']+)'/g,
  /(?<!typeof )(?:data\??\.code|dataCode)\s*[!=]==\s*'([^']+)'/g,
]

describe('error codes', () => {
  it('ErrorDataCode is exactly the list of @tangent/core/error-codes', () => {
    expect(ErrorDataCode.options).toEqual(errorCodeList)
    expect(errorCodeList).toEqual(Object.keys(errorCodes))
  })

  it('are kebab-case, unique, and each has a one-line description', () => {
    expect(new Set(errorCodeList).size).toBe(errorCodeList.length)
    for (const code of errorCodeList) {
      expect(code).toMatch(/^[a-z]+(-[a-z]+)*$/)
      expect(errorCodes[code].length, code).toBeGreaterThan(10)
      expect(errorCodes[code], code).not.toContain('\n')
    }
  })

  it('include the JSON-RPC codes and the ones the Host, the store and the CLI raise', () => {
    for (const code of [
      'parse-error',
      'invalid-request',
      'method-not-found',
      'invalid-params',
      'payload-too-large',
      'unauthorized',
      'internal',
      'connection-closed',
      'session-busy',
      'not-a-restore',
      'folder-not-found',
      'host-unreachable',
      'store-read-only',
      'corrupt-log',
      'store-locked',
      'worktree-exists',
      'port-in-use',
      'corrupt-workspaces',
      'home-not-directory',
    ]) {
      expect(isErrorCode(code), code).toBe(true)
    }
  })

  it('cover every code literal thrown, sent or compared in the packages', () => {
    const unknown: string[] = []
    let seen = 0
    for (const file of sourceFiles()) {
      const text = fs.readFileSync(file, 'utf8')
      for (const pattern of codeUses) {
        for (const match of text.matchAll(pattern)) {
          seen++
          const code = match[1]!
          if (!isErrorCode(code)) unknown.push(`${path.relative(packagesDir, file)}: '${code}'`)
        }
      }
    }
    expect(seen).toBeGreaterThan(20)
    expect(unknown).toEqual([])
  })

  it('isErrorCode refuses unknown strings and inherited keys', () => {
    expect(isErrorCode('session-not-found')).toBe(true)
    expect(isErrorCode('no-such-code')).toBe(false)
    expect(isErrorCode('toString')).toBe(false)
    expect(isErrorCode('')).toBe(false)
  })
})

describe('RpcError', () => {
  it('dataCode is the data.code when known, internal otherwise (the raw string stays in data)', () => {
    const busy = new RpcError(rpcErrorCodes.application, 'busy', { code: 'session-busy', sessionId: 'a' })
    expect(busy.dataCode).toBe('session-busy')
    const newer = new RpcError(rpcErrorCodes.application, 'newer', { code: 'from-a-newer-host' })
    expect(newer.dataCode).toBe('internal')
    expect(newer.data.code).toBe('from-a-newer-host')
    expect(new RpcError(rpcErrorCodes.application, 'no data').dataCode).toBe('internal')
  })

  it('is() checks the class and the data code', () => {
    const busy = new RpcError(rpcErrorCodes.application, 'busy', { code: 'session-busy' })
    expect(RpcError.is(busy, 'session-busy')).toBe(true)
    expect(RpcError.is(busy, 'session-not-found')).toBe(false)
    expect(RpcError.is({ data: { code: 'session-busy' } }, 'session-busy')).toBe(false)
    expect(RpcError.is(undefined, 'session-busy')).toBe(false)
    const error: unknown = busy
    if (RpcError.is(error, 'session-busy')) expect(error.code).toBe(-32000)
  })
})
