// The built page (packages/web/dist, made by `npm run build` before the tests) carries no zod:
// @tangent/core's browser build of lazy-zod has none, and the UI never parses with a schema
// (docs/architecture.md §9). zod's namespace pulled in by any import would add ~330 KB of script.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const assets = path.join(path.dirname(fileURLToPath(import.meta.url)), '../dist/assets')

describe('the built web UI', () => {
  it('bundles no zod module', () => {
    const maps = fs.readdirSync(assets).filter((name) => name.endsWith('.js.map'))
    expect(maps.length).toBeGreaterThan(0)
    // Several chunks: the page, the Markdown renderer, and highlighting's lazily loaded parts
    // (a language is one source).
    const sources = maps.flatMap(
      (name) =>
        (JSON.parse(fs.readFileSync(path.join(assets, name), 'utf8')) as { sources: string[] }).sources,
    )
    expect(sources.length).toBeGreaterThan(10)
    expect(sources.filter((source) => source.includes('node_modules/zod/'))).toEqual([])
  })
})
