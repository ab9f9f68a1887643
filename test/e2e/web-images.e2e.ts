// Images of a user message in the web transcript, in real Chromium against a real Host: a prompt
// with images (sent through the protocol: the web has no upload yet) shows each as a thumbnail
// the browser decodes. (That a file part of another type is named, never rendered, is
// transcript-model.test.ts's.)
import { connectHostApi } from '@tangent/host'
import { describe, expect, it } from 'vitest'
import {
  axeViolations,
  chromiumPath,
  endedTurns,
  eventually,
  failWithoutChromiumInCi,
  newSession,
  useAppPage,
} from './web-harness.js'

failWithoutChromiumInCi()

// Real 1x1 PNG and GIF images.
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
const gif = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'

describe.skipIf(!chromiumPath)('web UI: images in the transcript', () => {
  const app = useAppPage()

  it('shows the images of a prompt as thumbnails the browser decodes, with their text; axe passes', async () => {
    const { page, host } = app
    const sessionId = await newSession(page)
    const url = new URL(host.url)
    const api = await connectHostApi({ url: url.origin, token: url.searchParams.get('token')! })
    try {
      await api.call('session.prompt', {
        sessionId,
        text: 'what are these?',
        images: [
          { mediaType: 'image/png', data: png },
          { mediaType: 'image/gif', data: gif },
        ],
      })
    } finally {
      await api.close()
    }
    await eventually(() => endedTurns(page)).toBe(1)
    const message = page.getByTestId('user-message').last()
    expect(await message.locator('.message-body').textContent()).toBe('what are these?')
    const images = message.getByTestId('user-images').locator('img')
    expect(await images.count()).toBe(2)
    expect(await images.evaluateAll((nodes) => nodes.map((node) => (node as HTMLImageElement).alt))).toEqual([
      'Image 1 (image/png)',
      'Image 2 (image/gif)',
    ])
    // Decoded by the browser: real images of 1x1 pixels.
    await eventually(() =>
      images.evaluateAll((nodes) => nodes.map((node) => (node as HTMLImageElement).naturalWidth)),
    ).toEqual([1, 1])
    expect(await page.getByTestId('assistant-message').last().textContent()).toContain(
      'Received 2 images: image/png (70 bytes), image/gif (42 bytes).',
    )
    expect(await axeViolations(page)).toEqual([])
  })
})
