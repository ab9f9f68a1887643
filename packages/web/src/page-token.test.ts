import { describe, expect, it } from 'vitest'
import { takePageToken } from './page-token.js'

function memoryStorage() {
  const items = new Map<string, string>()
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
  }
}

describe('takePageToken', () => {
  it('takes the token out of the address, keeping the rest, and stores it for reloads', () => {
    const storage = memoryStorage()
    const first = takePageToken({ href: 'http://127.0.0.1:4317/?token=abc&x=1#s=01H' }, storage)
    expect(first).toEqual({ token: 'abc', cleanUrl: '/?x=1#s=01H' })
    // A reload of the clean address finds it in the tab's storage.
    expect(takePageToken({ href: 'http://127.0.0.1:4317/?x=1#s=01H' }, storage)).toEqual({
      token: 'abc',
      cleanUrl: null,
    })
  })

  it('a new token in the address replaces the stored one; none anywhere is an empty token', () => {
    const storage = memoryStorage()
    expect(takePageToken({ href: 'http://h/' }, storage)).toEqual({ token: '', cleanUrl: null })
    takePageToken({ href: 'http://h/?token=old' }, storage)
    expect(takePageToken({ href: 'http://h/?token=new' }, storage).token).toBe('new')
    expect(storage.items.get('tangent.token')).toBe('new')
  })
})
