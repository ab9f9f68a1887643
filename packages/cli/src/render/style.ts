// Colours for one output stream: on for a terminal, off for pipes, files and NO_COLOR.
import picocolors from 'picocolors'
import type { OutputStream } from '../context.js'

export type Style = ReturnType<typeof picocolors.createColors>

export function styleFor(stream: OutputStream, env: Record<string, string | undefined>): Style {
  const enabled = env.FORCE_COLOR ? env.FORCE_COLOR !== '0' : stream.isTTY === true && !env.NO_COLOR
  return picocolors.createColors(enabled)
}

/** Cuts `text` to one line of at most `max` characters. */
export function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/** A session's title for display ('' means none yet). */
export function titleOf(session: { title: string }): string {
  return session.title === '' ? '(untitled)' : session.title
}
