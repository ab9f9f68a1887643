// `session.export` of a 50,000-event session (issue 31): the offline HTML file against the
// Markdown transcript and the bundle of the same session, in the same process and run, so the
// ratio says what rendering Markdown and folding tool calls into HTML cost over writing the text.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Runtime } from '@tangent/runtime'
import { type BenchRow, type BenchSuite, median, timeIt } from './table.js'
import { writeTranscriptFixture } from './transcript-fixture.js'

const events = 50_000

async function measure(runtime: Runtime, id: string, format: 'jsonl' | 'md' | 'html') {
  let bytes = 0
  const times = await timeIt(async () => {
    const { lines } = await runtime.exportLines(id, format)
    bytes = lines.reduce((sum, line) => sum + line.length + 1, 0)
  }, 3)
  return { ms: median(times), bytes }
}

export const suite: BenchSuite = {
  title: `Export of a ${events.toLocaleString('en')}-event session: HTML against Markdown and the bundle`,
  async run(): Promise<BenchRow[]> {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-bench-export-'))
    try {
      const home = path.join(root, 'home')
      const cwd = path.join(root, 'work')
      fs.mkdirSync(cwd, { recursive: true })
      const fixture = writeTranscriptFixture(home, {
        id: 'exportbench',
        cwd,
        title: 'A long run',
        events,
        toolRun: 500,
      })
      const runtime = await Runtime.open({ home, startFolder: cwd, homeDir: root, report: () => {} })
      try {
        const bundle = await measure(runtime, fixture.id, 'jsonl')
        const markdown = await measure(runtime, fixture.id, 'md')
        const html = await measure(runtime, fixture.id, 'html')
        const row = (
          name: string,
          m: { ms: number; bytes: number },
          target?: BenchRow['target'],
        ): BenchRow => ({
          name,
          medianMs: m.ms,
          baseline: { name: 'md', medianMs: markdown.ms },
          extra: { MB: (m.bytes / 1e6).toFixed(1) },
          ...(target ? { target } : {}),
        })
        return [
          row('jsonl (bundle)', bundle),
          row('md (transcript)', markdown),
          row('html (one offline file)', html),
        ]
      } finally {
        await runtime.close()
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  },
}
