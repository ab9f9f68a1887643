// `npm run bench`: runs every `*.bench.ts` suite in this directory (or those named
// on the command line) and prints one table per suite. Never part of `npm test`.
import { readdirSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BenchSuite, renderTable } from './table.js'

const here = dirname(fileURLToPath(import.meta.url))
const only = process.argv.slice(2)
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.js'))
  .filter((f) => only.length === 0 || only.some((name) => f.startsWith(name)))
  .sort()

console.log(`# Tangent benchmarks\n`)
console.log(
  `Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${os.platform()} ${os.release()}`,
)
console.log(`Run: ${new Date().toISOString()}\n`)
let failed = false
for (const file of files) {
  // Suites are discovered at run time so each one stays in its own file.
  const mod = (await import(join(here, file))) as { suite: BenchSuite }
  try {
    const rows = await mod.suite.run()
    console.log(`${renderTable(mod.suite.title, rows)}\n`)
  } catch (error) {
    failed = true
    console.error(`Suite ${file} failed:`, error)
  }
}
process.exit(failed ? 1 : 0)
