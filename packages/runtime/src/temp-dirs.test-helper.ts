// Test support: temporary folders (real paths) a test file makes, removed after each test.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach } from 'vitest'

/** Returns a maker of fresh temporary folders named `<prefix>…`, each removed after its test. */
export function tempDirs(prefix: string): () => string {
  const made: string[] = []
  afterEach(() => {
    for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
  })
  return () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
    made.push(dir)
    return dir
  }
}
