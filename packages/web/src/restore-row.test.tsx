import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { HostStore } from './host-store.js'
import { RestoreRow, restoreHeading } from './restore-row.js'
import type { RestoreModel } from './transcript-model.js'
import { HostContext } from './use-host.js'
import type { RpcClient } from './wire.js'

const base: RestoreModel = {
  kind: 'restore',
  seq: 9,
  toSeq: 3,
  undoOf: null,
  restored: ['notes.txt', 'src/a.ts'],
  kept: [],
  skipped: [],
  keptFrom: null,
  undoneAt: null,
  inherited: false,
}

function render(restore: RestoreModel, running = false): string {
  const store = new HostStore(() => ({}) as RpcClient)
  return renderToStaticMarkup(
    <HostContext.Provider value={store}>
      <RestoreRow sessionId="s1" restore={restore} running={running} />
    </HostContext.Provider>,
  )
}

describe('RestoreRow', () => {
  it('says where the files went, lists them, and offers Undo', () => {
    const html = render(base)
    expect(html).toContain('Restored files to #3')
    expect(html).toContain('data-testid="restored-file">notes.txt<')
    expect(html).toContain('data-testid="restored-file">src/a.ts<')
    expect(html).toMatch(
      /<button[^>]*data-testid="undo-restore"[^>]*aria-label="Undo the restore at #9"[^>]*>Undo</,
    )
    expect(html).not.toMatch(/data-testid="undo-restore"[^>]*disabled/)
  })

  it('disables Undo while a turn runs', () => {
    expect(render(base, true)).toMatch(/data-testid="undo-restore"[^>]*disabled/)
  })

  it('has no Undo once undone, and says when', () => {
    const html = render({ ...base, undoneAt: 11 })
    expect(html).not.toContain('undo-restore')
    expect(html).toContain('undone at #11')
    expect(html).toContain('data-undone="true"')
  })

  it('reads "Undid the restore at #M" for an undo, with no Undo', () => {
    const html = render({ ...base, seq: 11, toSeq: null, undoOf: 9 })
    expect(html).toContain('Undid the restore at #9')
    expect(html).not.toContain('undo-restore')
  })

  it('has no Undo for a restore inherited from the parent', () => {
    expect(render({ ...base, inherited: true })).not.toContain('undo-restore')
  })

  it('says so when nothing needed changing, and lists kept and skipped paths', () => {
    const html = render({ ...base, restored: [], kept: ['new.txt'], skipped: ['big.bin'] })
    expect(html).toContain('No file needed changing.')
    expect(html).toContain('Left as they are: new.txt')
    expect(html).toContain('Skipped: big.bin')
  })

  it('names a restore to the start and one of unknown target', () => {
    expect(restoreHeading({ ...base, toSeq: -1 })).toBe('Restored files to the start')
    expect(restoreHeading({ ...base, toSeq: null })).toBe('Restored files')
  })

  it('names the branch a keep brought the files from, and keeps its Undo', () => {
    const html = render({ ...base, toSeq: null, keptFrom: { sessionId: 's-b', label: 'B' } })
    expect(html).toContain('Files from branch B')
    expect(html).toContain('data-testid="undo-restore"')
  })
})
