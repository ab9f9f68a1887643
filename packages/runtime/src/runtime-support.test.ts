import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { runtimeVersion } from './runtime-support.js'

describe('runtimeVersion', () => {
  it("is package.json's version (the bundled CLI has no package.json beside this code to read)", () => {
    const manifest = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string
    }
    expect(runtimeVersion).toBe(manifest.version)
  })
})
