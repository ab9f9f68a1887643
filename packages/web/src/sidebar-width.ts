// The sidebar's width (docs/architecture.md §8): dragged or set by keyboard on its separator,
// kept within bounds that leave the session room, and remembered in the browser's local
// storage so a reload keeps it.
import type { MemoryStorage } from './open-session-memory.js'

export const defaultSidebarWidth = 300
export const minSidebarWidth = 220
const maxSidebarWidthPx = 640
/** The session keeps at least this share of the window. */
const minMainShare = 0.4
const storageKey = 'tangent.sidebarWidth'

/** The widest the sidebar may be in a window this wide (never below the minimum). */
export function maxSidebarWidth(windowWidth: number): number {
  return Math.max(minSidebarWidth, Math.min(maxSidebarWidthPx, Math.floor(windowWidth * (1 - minMainShare))))
}

export function clampSidebarWidth(width: number, windowWidth: number): number {
  if (!Number.isFinite(width)) return defaultSidebarWidth
  return Math.round(Math.min(maxSidebarWidth(windowWidth), Math.max(minSidebarWidth, width)))
}

/** The remembered width, or the default (nothing stored, storage blocked, or not a number). */
export function readSidebarWidth(storage: MemoryStorage | null): number {
  let stored: string | null = null
  try {
    stored = storage?.getItem(storageKey) ?? null
  } catch {
    // Blocked storage (a private window) only costs the memory of the width.
    return defaultSidebarWidth
  }
  const width = stored === null ? Number.NaN : Number(stored)
  return Number.isFinite(width) && width > 0 ? width : defaultSidebarWidth
}

export function writeSidebarWidth(storage: MemoryStorage | null, width: number): void {
  try {
    storage?.setItem(storageKey, String(width))
  } catch {
    // Full or blocked storage: the width holds for this page and is forgotten on reload.
  }
}
