// "Browse…": pick a folder to open as a workspace by walking the Host's folders (the Host
// lists them: the page cannot see the disk). Up goes to the parent, a subfolder opens it,
// "Open this folder" chooses the one shown. Keyboard: arrows move in the list, Enter opens a
// subfolder, Backspace or Alt+↑ goes up, Esc closes. Errors show in place, not behind the dialog.
import { RpcError } from '@tangent/protocol'
import { type KeyboardEvent, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react'
import type { DialogState } from './host-state.js'
import { Modal } from './modal.js'
import { useHost, useStore } from './use-host.js'
import type { BrowseResult } from './wire.js'

type BrowseDialogState = Extract<DialogState, { kind: 'browse' }>

/** Where focus goes once a listing arrives: its first folder, or the folder we came up from. */
type FocusTarget = { readonly kind: 'first' } | { readonly kind: 'name'; readonly path: string }

export function FolderBrowser({ dialog }: { dialog: BrowseDialogState }) {
  const store = useStore()
  const startFolder = useHost((state) => state.info?.startFolder)
  const homeDir = useHost((state) => state.info?.homeDir)
  const workspaces = useHost((state) => state.workspaces)
  const [listing, setListing] = useState<BrowseResult | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [loading, setLoading] = useState(true)
  const [opening, setOpening] = useState(false)
  const [hidden, setHidden] = useState(false)
  const [active, setActive] = useState(0)
  const request = useRef(0)
  const focusNext = useRef<FocusTarget | null>(null)
  const list = useRef<HTMLUListElement>(null)
  const openButton = useRef<HTMLButtonElement>(null)
  const close = () => store.openDialog(null)

  const go = useCallback(
    async (path: string | undefined, showHidden: boolean, focus: FocusTarget | null) => {
      const token = ++request.current
      setLoading(true)
      try {
        const result = await store.browse(path, showHidden)
        if (token !== request.current) return
        focusNext.current = focus
        setListing(result)
        setError(null)
        const at = focus?.kind === 'name' ? result.folders.findIndex((f) => f.path === focus.path) : -1
        setActive(Math.max(0, at))
      } catch (failure) {
        if (token === request.current) setError(errorText(failure))
      } finally {
        if (token === request.current) setLoading(false)
      }
    },
    [store],
  )

  // biome-ignore lint/correctness/useExhaustiveDependencies: the first listing only, once
  useEffect(() => {
    void go(dialog.path, false, { kind: 'first' })
  }, [])

  // A new listing moves focus into it, so the keyboard continues where the eyes go.
  useLayoutEffect(() => {
    const target = focusNext.current
    if (!listing || !target) return
    focusNext.current = null
    const buttons = list.current?.querySelectorAll<HTMLButtonElement>('button[data-path]')
    const at = target.kind === 'name' ? listing.folders.findIndex((f) => f.path === target.path) : 0
    const button = buttons?.[Math.max(0, at)]
    if (button) button.focus()
    else openButton.current?.focus()
  }, [listing])

  const up = () => {
    if (listing?.parent) void go(listing.parent, hidden, { kind: 'name', path: listing.path })
  }

  function onListKey(event: KeyboardEvent<HTMLUListElement>) {
    const buttons = [...(list.current?.querySelectorAll<HTMLButtonElement>('button[data-path]') ?? [])]
    if (buttons.length === 0) return
    const at = Math.max(0, buttons.indexOf(document.activeElement as HTMLButtonElement))
    const page = 8
    const target =
      event.key === 'ArrowDown'
        ? Math.min(at + 1, buttons.length - 1)
        : event.key === 'ArrowUp' && !event.altKey
          ? Math.max(at - 1, 0)
          : event.key === 'PageDown'
            ? Math.min(at + page, buttons.length - 1)
            : event.key === 'PageUp'
              ? Math.max(at - page, 0)
              : event.key === 'Home'
                ? 0
                : event.key === 'End'
                  ? buttons.length - 1
                  : null
    if (target === null) return
    event.preventDefault()
    setActive(target)
    buttons[target]?.focus()
  }

  function onDialogKey(event: KeyboardEvent<HTMLDialogElement>) {
    const typing = event.target instanceof HTMLInputElement && event.target.type !== 'checkbox'
    if ((event.key === 'Backspace' && !typing) || (event.key === 'ArrowUp' && event.altKey)) {
      event.preventDefault()
      up()
    }
  }

  async function choose() {
    if (!listing) return
    setOpening(true)
    const workspace = await store.openWorkspace(listing.path, (failure) => setError(errorText(failure)))
    setOpening(false)
    if (workspace) close()
  }

  const places = placesOf(startFolder, homeDir, workspaces)
  const name = listing ? baseName(listing.path) : ''

  return (
    <Modal
      title="Open a folder"
      testId="folder-browser"
      onClose={close}
      className="folder-browser"
      onKeyDown={onDialogKey}
    >
      <div className="browse">
        <fieldset className="browse-places">
          <legend className="visually-hidden">Go to</legend>
          <span className="browse-places-label" aria-hidden="true">
            Go to
          </span>
          {places.map((place) => (
            <button
              key={place.path}
              type="button"
              className="chip"
              data-testid={place.testId}
              title={place.path}
              disabled={loading && listing === null}
              onClick={() => void go(place.path, hidden, { kind: 'first' })}
            >
              {place.label}
            </button>
          ))}
        </fieldset>
        <div className="browse-bar">
          <button
            type="button"
            className="button"
            data-testid="browse-up"
            disabled={!listing?.parent || loading}
            title={listing?.parent ? `Up to ${listing.parent} (Backspace)` : 'This is the top folder'}
            onClick={up}
          >
            <span aria-hidden="true">↑ </span>Up
            <span className="visually-hidden"> to the parent folder</span>
          </button>
          <code className="browse-path" data-testid="browse-path" title={listing?.path}>
            {listing?.path ?? (loading ? 'Loading…' : '')}
          </code>
        </div>
        <label className="browse-hidden">
          <input
            type="checkbox"
            data-testid="browse-hidden"
            checked={hidden}
            onChange={(event) => {
              setHidden(event.target.checked)
              void go(listing?.path ?? dialog.path, event.target.checked, null)
            }}
          />
          Show hidden folders
        </label>
        {error ? (
          <p className="browse-error" role="alert" data-testid="browse-error">
            {error}
          </p>
        ) : null}
        <p className="visually-hidden" role="status" aria-live="polite">
          {loading
            ? 'Loading folders…'
            : listing
              ? `${listing.path}: ${countText(listing.folders.length, listing.truncated)}`
              : ''}
        </p>
        {listing ? (
          <>
            {listing.folders.length === 0 ? (
              <p className="muted browse-empty" data-testid="browse-empty">
                No subfolders in {name}.
              </p>
            ) : (
              <ul
                ref={list}
                className="browse-list"
                data-testid="browse-list"
                aria-label={`Subfolders of ${name}`}
                aria-busy={loading}
                onKeyDown={onListKey}
              >
                {listing.folders.map((folder, index) => (
                  <li key={folder.path}>
                    <button
                      type="button"
                      className="browse-folder"
                      data-testid="browse-folder"
                      data-path={folder.path}
                      tabIndex={index === active ? 0 : -1}
                      aria-label={`${folder.name}, open folder`}
                      onFocus={() => setActive(index)}
                      onClick={() => void go(folder.path, hidden, { kind: 'first' })}
                    >
                      <span className="folder-glyph" aria-hidden="true">
                        ▸
                      </span>
                      <span className="folder-name">{folder.name}</span>
                    </button>
                  </li>
                ))}
              </ul>
            )}
            {listing.truncated ? (
              <p className="muted browse-note" data-testid="browse-truncated">
                Showing the first {listing.folders.length.toLocaleString('en')} folders. To reach one further
                down, type its path in the folder box.
              </p>
            ) : null}
          </>
        ) : null}
        <div className="form-actions">
          <button type="button" className="button" onClick={close}>
            Cancel
          </button>
          <button
            ref={openButton}
            type="button"
            className="button primary"
            data-testid="browse-open"
            disabled={!listing || loading || opening}
            title={listing ? `Open ${listing.path} as a workspace` : undefined}
            onClick={() => void choose()}
          >
            {opening ? 'Opening…' : listing ? `Open ${name}` : 'Open this folder'}
          </button>
        </div>
      </div>
    </Modal>
  )
}

interface Place {
  readonly label: string
  readonly path: string
  readonly testId: string
}

/** Start folder, home, then the recently opened workspaces (up to 5), each once. */
export function placesOf(
  startFolder: string | undefined,
  homeDir: string | undefined,
  workspaces: readonly { readonly path: string; readonly name: string }[],
): Place[] {
  const places: Place[] = []
  const add = (label: string, path: string | undefined, testId: string) => {
    if (path && !places.some((place) => place.path === path)) places.push({ label, path, testId })
  }
  add('Start folder', startFolder, 'browse-start')
  add('Home', homeDir, 'browse-home')
  for (const workspace of workspaces.slice(0, 5)) add(workspace.name, workspace.path, 'browse-recent')
  return places
}

function countText(count: number, truncated: boolean): string {
  if (count === 0) return 'no subfolders'
  return `${truncated ? 'the first ' : ''}${count} subfolder${count === 1 ? '' : 's'}`
}

function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean)
  return parts.at(-1) ?? path
}

function errorText(error: unknown): string {
  if (error instanceof RpcError && error.dataCode === 'method-not-found') {
    return 'This Host cannot list folders (it has no workspace.browse). Type the folder path in the folder box instead.'
  }
  return error instanceof Error ? error.message : String(error)
}
