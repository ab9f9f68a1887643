// The web UI's modules import each other without cycles (a cycle makes load order matter
// and has broken hot reload before: session-row ↔ session-tree).
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const dir = path.dirname(fileURLToPath(import.meta.url))

function localImports(file: string): string[] {
  const text = fs.readFileSync(path.join(dir, file), 'utf8')
  const found: string[] = []
  for (const match of text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'\.\/([^']+)\.js'/gm)) {
    const name = match[1]!
    const target = ['.ts', '.tsx'].map((ext) => `${name}${ext}`).find((f) => fs.existsSync(path.join(dir, f)))
    if (target) found.push(target)
  }
  return found
}

/** The first import cycle among `files`, as a path of modules, or null. */
function findCycle(files: readonly string[]): string[] | null {
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (file: string): string[] | null => {
    if (state.get(file) === 'done') return null
    if (state.get(file) === 'open') return [...stack.slice(stack.indexOf(file)), file]
    state.set(file, 'open')
    stack.push(file)
    for (const next of localImports(file)) {
      const cycle = visit(next)
      if (cycle) return cycle
    }
    stack.pop()
    state.set(file, 'done')
    return null
  }
  for (const file of files) {
    const cycle = visit(file)
    if (cycle) return cycle
  }
  return null
}

describe('web UI modules', () => {
  it('have no import cycle', () => {
    const files = fs
      .readdirSync(dir)
      .filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f) && !f.endsWith('.d.ts'))
    expect(files.length).toBeGreaterThan(20)
    expect(findCycle(files)).toBeNull()
  })

  it('reads the local imports of a module (what the cycle check walks)', () => {
    expect(localImports('session-row.tsx')).toContain('session-display.ts')
    expect(localImports('session-tree.tsx')).toContain('session-row.tsx')
    expect(localImports('session-row.tsx')).not.toContain('session-tree.tsx')
  })
})
