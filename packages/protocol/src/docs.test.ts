// docs/protocol.md is the contract outside clients read: it must name every method,
// notification and error code this package defines, and its error table must be the list.
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { errorCodeList, errorCodes, isErrorCode, methods, notifications } from './index.js'

const protocolDoc = fs.readFileSync(new URL('../../../docs/protocol.md', import.meta.url), 'utf8')
const architectureDoc = fs.readFileSync(new URL('../../../docs/architecture.md', import.meta.url), 'utf8')

/** The cells of every table row whose first cell is a code span: `| \`name\` | … |`. */
function tableRows(markdown: string): Map<string, string[]> {
  const rows = new Map<string, string[]>()
  for (const line of markdown.split('\n')) {
    const match = /^\| `([^`]+)` \|(.*)\|\s*$/.exec(line)
    if (!match) continue
    // Cells split on `|` that is not escaped as `\|`.
    rows.set(
      match[1]!,
      match[2]!.split(/(?<!\\)\|/).map((cell) => cell.trim()),
    )
  }
  return rows
}

/** The lines of the section that starts with `## title` (up to the next `## `). */
function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`)
  expect(start, `section "## ${title}"`).toBeGreaterThanOrEqual(0)
  const end = markdown.indexOf('\n## ', start + 1)
  return markdown.slice(start, end < 0 ? undefined : end)
}

describe('docs/protocol.md', () => {
  const errorRows = tableRows(section(protocolDoc, 'Errors'))

  it('has a row for every error code, whose "when" is the description of the list', () => {
    const missing = errorCodeList.filter((code) => !errorRows.has(code))
    expect(missing, 'codes without a row in the Errors table').toEqual([])
    for (const code of errorCodeList) {
      // Columns: raised by | JSON-RPC code | when | other data.
      expect(errorRows.get(code)![2], `the "when" of ${code}`).toBe(errorCodes[code])
    }
  })

  it('lists no error code the list does not have, in the order of the list', () => {
    const documented = [...errorRows.keys()]
    expect(documented.filter((code) => !isErrorCode(code))).toEqual([])
    expect(documented).toEqual(errorCodeList)
  })

  it('lists every method with params and result, and describes each', () => {
    const rows = tableRows(section(protocolDoc, 'Methods'))
    for (const method of Object.keys(methods)) {
      expect(rows.has(method), `a row for ${method}`).toBe(true)
      const [params, result] = rows.get(method)!
      expect(params, `params of ${method}`).toMatch(/^`\{.*\}`$/)
      expect(result, `result of ${method}`).not.toBe('')
      expect(protocolDoc, `a ### heading naming ${method}`).toMatch(
        new RegExp(`^### .*\`${method.replace('.', '\\.')}\``, 'm'),
      )
    }
    expect([...rows.keys()].sort()).toEqual(Object.keys(methods).sort())
  })

  it('lists every notification', () => {
    const rows = tableRows(section(protocolDoc, 'Notifications (server → client, WebSocket only)'))
    expect([...rows.keys()].sort()).toEqual(Object.keys(notifications).sort())
  })
})

describe('docs/architecture.md', () => {
  it('keeps the numbered sections that code comments cite (§1 … §9)', () => {
    const titles = [
      '1. Packages',
      '2. The event log',
      '3. SessionStore and fork',
      '4. Persistence',
      '5. File state',
      '6. The agent',
      '7. The runtime and the Host',
      '8. The web UI',
      '9. The CLI',
    ]
    for (const title of titles) expect(architectureDoc).toContain(`\n## ${title}`)
  })
})
