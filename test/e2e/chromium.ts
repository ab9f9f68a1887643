// Debian's Chromium for the browser tests: where it is, the flags it runs with, and one browser
// for the whole run (chromium-server.ts starts it; each test file connects to it).
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import { type Browser, chromium } from 'playwright-core'
import { inject } from 'vitest'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's shared Chromium (playwright's browser server), or '' when there is none. */
    chromiumEndpoint: string
  }
}

/** The chromium binary, or null when it is not installed. */
export function findChromium(): string | null {
  for (const candidate of [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser']) {
    if (candidate && fs.existsSync(candidate)) return candidate
  }
  try {
    const found = execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim()
    return found === '' ? null : found
  } catch {
    // `which` exits 1 when there is no such command: that is the answer, not an error.
    return null
  }
}

export const chromiumPath = findChromium()

/** Headless, no GPU, nothing that reaches the network on its own. */
export function chromiumArgs(extraArgs: readonly string[] = []): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    ...extraArgs,
  ]
}

/**
 * A browser for one test file. Without extra flags it is a connection to the run's shared
 * Chromium (starting one costs a second and a core; each file still gets its own contexts, and
 * `close()` only disconnects); with extra flags, or run outside vitest's e2e project, its own.
 */
export async function connectOrLaunch(
  executablePath: string,
  extraArgs: readonly string[],
): Promise<Browser> {
  let endpoint = ''
  try {
    endpoint = inject('chromiumEndpoint') ?? ''
  } catch {
    // Not inside a vitest worker with the e2e project's global setup: launch one.
  }
  if (extraArgs.length === 0 && endpoint !== '') return chromium.connect(endpoint)
  return chromium.launch({ executablePath, args: chromiumArgs(extraArgs) })
}
