// Temporary directories the end-to-end and contract files make, removed by the file that made
// them (removeTempDirs in its afterAll or afterEach, once what used them is closed). One list per
// test process: files sharing a worker run one after another, each removing what it made.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const temps: string[] = []

/** A fresh directory (its real path) under the temp dir, named `<prefix>…`. */
export function tempDir(prefix = 'tangent-'): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  temps.push(dir)
  return dir
}

/** A directory made some other way (beside a project, by the code under test) removed with them. */
export function removeLater(dir: string): void {
  temps.push(dir)
}

/** Removes the directories tempDir made (and removeLater named) so far. */
export function removeTempDirs(): void {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
}
