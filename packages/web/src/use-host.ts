// React access to the HostStore: one store per page, provided at the root; components
// select the slice they render so a streaming delta re-renders only the transcript.
import { createContext, useContext, useSyncExternalStore } from 'react'
import type { HostState } from './host-state.js'
import type { HostStore } from './host-store.js'

export const HostContext = createContext<HostStore | null>(null)

export function useStore(): HostStore {
  const store = useContext(HostContext)
  if (!store) throw new Error('useStore needs a <HostContext.Provider> above it.')
  return store
}

export function useHost<T>(select: (state: HostState) => T): T {
  const store = useStore()
  const read = () => select(store.getState())
  // The same snapshot on a server render (the unit tests render components to static HTML).
  return useSyncExternalStore(store.subscribe, read, read)
}
