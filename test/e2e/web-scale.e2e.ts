// The lineage tree with hundreds of sessions in real Chromium: rows are windowed (only
// the visible ones are in the DOM), scrolling reaches the last one, and forks still nest.
import fs from 'node:fs'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  axeViolations,
  chromiumPath,
  eventually,
  failWithoutChromiumInCi,
  launchBrowser,
  newPage,
  openApp,
  row,
  screenshot,
  startTestHost,
  type TestHost,
} from './web-harness.js'

failWithoutChromiumInCi()

const sessionCount = 400

/** JSON-RPC over HTTP (docs/protocol.md), one batch: how a script would fill a Host. */
async function rpcBatch(host: TestHost, calls: { method: string; params: unknown }[]): Promise<unknown[]> {
  const url = new URL(host.url)
  const response = await fetch(`${url.origin}/rpc`, {
    method: 'POST',
    headers: { authorization: `Bearer ${url.searchParams.get('token')}`, 'content-type': 'application/json' },
    body: JSON.stringify(calls.map((call, id) => ({ jsonrpc: '2.0', id, ...call }))),
  })
  const body: unknown = await response.json()
  if (!Array.isArray(body)) throw new Error(`Batch refused: ${JSON.stringify(body)}`)
  const answers = body as { id: number; result?: unknown; error?: { message: string } }[]
  return answers
    .sort((a, b) => a.id - b.id)
    .map((answer) => {
      if (answer.error) throw new Error(answer.error.message)
      return answer.result
    })
}

describe.skipIf(!chromiumPath)('web UI: a large tree', () => {
  let host: TestHost
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    host = await startTestHost()
    browser = await launchBrowser()
    ;({ page } = await newPage(browser))
  })
  afterAll(async () => {
    await browser?.close()
    await host?.close()
  })

  it(`renders only the visible rows of ${sessionCount} sessions and scrolls to the last`, async () => {
    const [workspace] = (await rpcBatch(host, [
      { method: 'workspace.open', params: { path: host.workspace } },
    ])) as {
      id: string
    }[]
    const created: { id: string }[] = []
    // The Host takes at most 100 calls per batch.
    for (let start = 0; start < sessionCount; start += 100) {
      const calls = Array.from({ length: 100 }, (_, i) => ({
        method: 'session.create',
        params: { workspaceId: workspace!.id, title: `Session ${String(start + i).padStart(3, '0')}` },
      }))
      created.push(...((await rpcBatch(host, calls)) as { id: string }[]))
    }
    expect(created).toHaveLength(sessionCount)

    await openApp(page, host.url)
    await eventually(() => page.getByTestId('workspace-row').first().textContent()).toContain(
      String(sessionCount),
    )
    const rendered = await page.getByTestId('session-row').count()
    expect(rendered).toBeGreaterThan(10)
    expect(rendered).toBeLessThan(80)

    // Newest first: the first created session is the last row.
    const oldest = created[0]!.id
    expect(await row(page, oldest).count()).toBe(0)
    await page.getByTestId('session-tree').evaluate((element) => {
      element.scrollTop = element.scrollHeight
    })
    await row(page, oldest).waitFor()
    expect(await page.getByTestId('session-row').count()).toBeLessThan(80)

    // The filter narrows the tree to matching titles; Esc clears it.
    const filter = page.getByTestId('session-filter')
    await filter.fill('session 123')
    await eventually(() => page.getByTestId('session-row').count()).toBe(1)
    expect(await page.getByTestId('session-row').getAttribute('data-session-id')).toBe(created[123]!.id)
    await filter.fill('no such title')
    await page.getByTestId('filter-empty').waitFor()
    await filter.press('Escape')
    await eventually(() => page.getByTestId('session-row').count()).toBeGreaterThan(10)
  })
})

describe.skipIf(!chromiumPath)('web UI: damaged lineage', () => {
  it('flags sessions whose parents form a loop (damaged headers) in the tree', async () => {
    let host = await startTestHost()
    const browser = await launchBrowser()
    try {
      const [a] = (await rpcBatch(host, [{ method: 'session.create', params: { title: 'Loop A' } }])) as {
        id: string
      }[]
      await rpcBatch(host, [{ method: 'session.prompt', params: { sessionId: a!.id, text: 'one' } }])
      const [forked] = (await rpcBatch(host, [{ method: 'session.fork', params: { sessionId: a!.id } }])) as {
        session: { id: string }
      }[]
      const b = forked!.session.id
      // Damage A's header by hand while the Host is down: its parent is now B, which reads from A.
      host = await host.restart(async () => {
        const file = path.join(host.home, 'sessions', `${a!.id}.jsonl`)
        const lines = fs.readFileSync(file, 'utf8').split('\n')
        lines[0] = JSON.stringify({
          ...JSON.parse(lines[0]!),
          parentSession: b,
          forkedAt: 0,
          seed: 'ref',
          inheritedEventCount: 1,
        })
        lines.splice(1, 1)
        fs.writeFileSync(file, lines.join('\n'))
        fs.rmSync(path.join(host.home, 'catalog.json'), { force: true })
      })
      const { page } = await newPage(browser)
      await openApp(page, host.url)
      for (const id of [a!.id, b]) {
        const tag = row(page, id).getByTestId('row-parent-loop')
        await eventually(() => tag.textContent()).toBe('parent loop')
        expect(await tag.getAttribute('title')).toContain(`${a!.id} → ${b}`)
      }
      // In words, not only a coloured tag: the row's accessible name says so and names the loop.
      const named = page.getByRole('treeitem', {
        name: /parent loop\W+its parents form a loop \(damaged logs\), Loop A → Loop A · fork 1/,
      })
      await eventually(() => named.count()).toBe(2)
      expect(await axeViolations(page)).toEqual([])
      await screenshot(page, 'parent-loop')
    } finally {
      await browser.close()
      await host.close()
    }
  })
})
