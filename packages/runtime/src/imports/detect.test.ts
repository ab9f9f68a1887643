// Which tool wrote a file, from its first line: a bundle, pi, Codex, Claude Code, or none; the
// registry takes more detectors in order.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { detectImportSource, type ImportDetector, importDetectors } from './detect.js'

describe('detectImportSource', () => {
  it('knows a bundle, pi, Codex and Claude Code by their first lines', () => {
    const bundle = JSON.stringify({
      format: 'tangent-bundle',
      version: 1,
      exportedAt: '',
      sessionId: 'S',
      tangentVersion: '0',
    })
    expect(detectImportSource(bundle, '/x/s.jsonl')).toBe('tangent')
    expect(
      detectImportSource('{"type":"session","version":3,"id":"p1","cwd":"/w","timestamp":"t"}', '/x/a.jsonl'),
    ).toBe('pi')
    expect(detectImportSource('{"timestamp":"t","type":"session_meta","payload":{}}', '/x/a.jsonl')).toBe(
      'codex',
    )
    expect(
      detectImportSource('{"parentUuid":null,"sessionId":"c1","uuid":"u1","type":"user"}', '/x/a.jsonl'),
    ).toBe('claude')
  })

  it('knows every first line of the fixtures the real tools wrote', () => {
    const root = path.join(fileURLToPath(new URL('.', import.meta.url)), '../../../../test/fixtures/imports')
    const files = (dir: string): string[] =>
      fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((entry) =>
          entry.isDirectory() ? files(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
        )
    const fixtures = files(root).filter((file) => file.endsWith('.jsonl'))
    expect(fixtures.length).toBeGreaterThan(10)
    for (const file of fixtures) {
      const tool = path.relative(root, file).split(path.sep)[0]
      const firstLine = fs.readFileSync(file, 'utf8').split('\n')[0]!
      expect([file, detectImportSource(firstLine, file)]).toEqual([file, tool])
    }
  })

  it('knows nothing of other text, broken JSON or an empty line', () => {
    for (const line of ['hello', '{"format":"tangent', '', '[1,2]', '{"type":"other"}'])
      expect(detectImportSource(line, '/x/a.txt')).toBeNull()
  })

  it('asks the detectors in order: the first that knows the file wins', () => {
    const mine: ImportDetector = (line) => (line.startsWith('#pi') ? 'pi' : null)
    expect(detectImportSource('#pi header', '/x', [mine, ...importDetectors])).toBe('pi')
    expect(detectImportSource('#pi header', '/x')).toBeNull()
  })
})
