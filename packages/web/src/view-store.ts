// View state around the Host's data: which tree rows are expanded, which workspaces folded,
// whether archived sessions show, which dialog is up and which row is being renamed.
import type { DialogState, HostState } from './host-state.js'
import type { StoreState } from './store-state.js'

export class ViewStore {
  readonly #state: StoreState

  constructor(state: StoreState) {
    this.#state = state
  }

  toggleExpanded(sessionId: string): void {
    const expanded = new Set(this.#state.get().expanded)
    if (!expanded.delete(sessionId)) expanded.add(sessionId)
    this.#state.set({ expanded })
  }

  toggleWorkspace(workspaceId: string): void {
    const collapsed = new Set(this.#state.get().collapsedWorkspaces)
    if (!collapsed.delete(workspaceId)) collapsed.add(workspaceId)
    this.#state.set({ collapsedWorkspaces: collapsed })
  }

  setShowArchived(showArchived: boolean): void {
    this.#state.set({ showArchived })
  }

  openDialog(dialog: DialogState | null): void {
    this.#state.set({ dialog })
  }

  startRename(sessionId: string | null): void {
    this.#state.set({ renaming: sessionId })
  }

  /** The patch that expands these rows (tree keys: session ids, exploration groups) too. */
  expanding(keys: Iterable<string>): Pick<HostState, 'expanded'> {
    const expanded = new Set(this.#state.get().expanded)
    for (const key of keys) expanded.add(key)
    return { expanded }
  }

  /** The patch that unfolds a workspace. */
  unfolding(workspaceId: string): Pick<HostState, 'collapsedWorkspaces'> {
    const collapsed = new Set(this.#state.get().collapsedWorkspaces)
    collapsed.delete(workspaceId)
    return { collapsedWorkspaces: collapsed }
  }
}
