// vitest global setup of the e2e project: one Chromium for the whole run, which the browser
// tests connect to (chromium.ts connectOrLaunch) instead of each file starting its own.
import { chromium } from 'playwright-core'
import type { TestProject } from 'vitest/node'
import { chromiumArgs, chromiumPath } from './chromium.js'

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!chromiumPath) {
    project.provide('chromiumEndpoint', '')
    return undefined
  }
  const server = await chromium.launchServer({ executablePath: chromiumPath, args: chromiumArgs() })
  project.provide('chromiumEndpoint', server.wsEndpoint())
  return () => server.close()
}
