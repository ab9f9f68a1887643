import { describe, expect, it } from 'vitest'
import { placesOf } from './folder-browser.js'
import { folderChoices } from './sidebar.js'

const workspaces = [
  { path: '/home/ann/start', name: 'start' },
  { path: '/home/ann/other', name: 'other' },
  { path: '', name: 'Other sessions' },
]

describe('folderChoices (the folder box suggestions)', () => {
  it('offers the start folder first, then recent folders, each once', () => {
    expect(folderChoices('/home/ann/start', workspaces)).toEqual([
      { path: '/home/ann/start', label: 'Start folder' },
      { path: '/home/ann/other', label: 'Recent: other' },
    ])
  })
  it('works without a start folder (an older Host)', () => {
    expect(folderChoices(undefined, workspaces).map((c) => c.path)).toEqual([
      '/home/ann/start',
      '/home/ann/other',
    ])
  })
})

describe('placesOf (the folder browser "Go to" row)', () => {
  it('is start folder, home, then up to five recent folders, without repeats', () => {
    const many = Array.from({ length: 8 }, (_, i) => ({ path: `/w/${i}`, name: `w${i}` }))
    const places = placesOf('/w/0', '/home/ann', many)
    expect(places.map((p) => p.label)).toEqual(['Start folder', 'Home', 'w1', 'w2', 'w3', 'w4'])
    expect(places[0]).toEqual({ label: 'Start folder', path: '/w/0', testId: 'browse-start' })
  })
  it('has only the recent folders when the Host does not say where it started', () => {
    expect(placesOf(undefined, undefined, workspaces.slice(0, 1)).map((p) => p.label)).toEqual(['start'])
  })
})
