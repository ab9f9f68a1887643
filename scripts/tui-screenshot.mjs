// Renders a terminal screen captured from a pseudo-terminal (`tmux capture-pane -p -e`, colours as
// escape sequences) to a PNG with Chromium, for the README's screenshot of `tangent tui`:
//   node scripts/tui-screenshot.mjs screen.ansi docs/screenshots/tui.png
import fs from 'node:fs'
import { chromium } from 'playwright-core'

const [input, output] = process.argv.slice(2)
if (!input || !output) {
  console.error('usage: node scripts/tui-screenshot.mjs SCREEN.ansi OUT.png')
  process.exit(2)
}
const palette = ['#1d1f21', '#cc6666', '#8fb573', '#e5c07b', '#81a2be', '#b294bb', '#8abeb7', '#c5c8c6']
const bright = ['#666666', '#ff7b72', '#a8e07a', '#ffd580', '#9ecbff', '#d2a8ff', '#a5f3fc', '#ffffff']
const esc = String.fromCharCode(27)
const sgrSplit = new RegExp(`(${esc}\\[[0-9;]*m)`)
const sgrCodes = new RegExp(`^${esc}\\[([0-9;]*)m$`)
const escapeHtml = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

function toHtml(ansi) {
  let state = { fg: null, bold: false, dim: false, italic: false, inverse: false }
  let html = ''
  for (const part of ansi.split(sgrSplit)) {
    const sgr = sgrCodes.exec(part)
    if (!sgr) {
      if (part === '') continue
      const fg = state.fg ?? '#c5c8c6'
      const style = [
        state.inverse ? `background:${fg};color:#1d1f21` : `color:${fg}`,
        state.bold ? 'font-weight:bold' : '',
        state.dim ? 'opacity:0.6' : '',
        state.italic ? 'font-style:italic' : '',
      ].filter(Boolean)
      html += `<span style="${style.join(';')}">${escapeHtml(part)}</span>`
      continue
    }
    for (const code of (sgr[1] || '0').split(';').map(Number)) {
      if (code === 0) state = { fg: null, bold: false, dim: false, italic: false, inverse: false }
      else if (code === 1) state.bold = true
      else if (code === 2) state.dim = true
      else if (code === 3) state.italic = true
      else if (code === 7) state.inverse = true
      else if (code === 22) state.bold = state.dim = false
      else if (code === 23) state.italic = false
      else if (code === 27) state.inverse = false
      else if (code >= 30 && code <= 37) state.fg = palette[code - 30]
      else if (code >= 90 && code <= 97) state.fg = bright[code - 90]
      else if (code === 39) state.fg = null
    }
  }
  return html
}

const page = `<!doctype html><meta charset="utf-8"><body style="margin:0;background:#1d1f21">
<pre style="margin:0;padding:14px 16px;font:14px/1 'DejaVu Sans Mono',monospace;color:#c5c8c6;display:inline-block">${toHtml(fs.readFileSync(input, 'utf8').replace(/\n+$/, ''))}</pre>`
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
})
try {
  const tab = await browser.newPage({ deviceScaleFactor: 1 })
  await tab.setContent(page)
  await tab.locator('pre').screenshot({ path: output })
} finally {
  await browser.close()
}
