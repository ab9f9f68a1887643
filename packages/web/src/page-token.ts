// The Host's token reaches the page in its address (`?token=…`, as `tangent serve` prints
// it). It is taken out of the address bar once read — so it is not left in history, screen
// shares or bookmarks — and kept in this tab's session storage for reloads.

const storageKey = 'tangent.token'

export interface PageLocation {
  readonly href: string
}

export interface TokenStorage {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
}

/** Reads the token, stores it, and returns the address without it (null when unchanged). */
export function takePageToken(
  location: PageLocation,
  storage: TokenStorage,
): { token: string; cleanUrl: string | null } {
  const url = new URL(location.href)
  const fromAddress = url.searchParams.get('token')
  if (fromAddress === null) return { token: storage.getItem(storageKey) ?? '', cleanUrl: null }
  storage.setItem(storageKey, fromAddress)
  url.searchParams.delete('token')
  return { token: fromAddress, cleanUrl: `${url.pathname}${url.search}${url.hash}` }
}
