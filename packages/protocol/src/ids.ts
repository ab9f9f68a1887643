// Identifiers that cross the wire. Session ids reach the file system, so they follow
// core's pattern (no separators, no dots, no NUL): `../x` or `a\0b` never validates.
import { lazySchema } from '@tangent/core/lazy-zod'
import type { z } from 'zod'
import { maxPathChars } from './limits.js'

/** The same pattern as `sessionIdPattern` in `@tangent/core` (kept here: this package runs in browsers). */
export const sessionIdPattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/

export const SessionId = lazySchema((z) =>
  z
    .string()
    .regex(
      sessionIdPattern,
      'use 1-128 characters of A-Z, a-z, 0-9, "_" and "-", starting with a letter or digit',
    ),
)
export type SessionId = z.infer<typeof SessionId>

/** Workspace ids follow the session id pattern too. */
export const WorkspaceId = lazySchema((z) =>
  z
    .string()
    .regex(
      sessionIdPattern,
      'use 1-128 characters of A-Z, a-z, 0-9, "_" and "-", starting with a letter or digit',
    ),
)
export type WorkspaceId = z.infer<typeof WorkspaceId>

/** A file-system path from a client: bounded, no NUL byte. */
export const FilePath = lazySchema((z) =>
  z
    .string()
    .min(1)
    .max(maxPathChars)
    .refine((value) => !value.includes('\0'), 'a path must not contain a NUL byte'),
)
export type FilePath = z.infer<typeof FilePath>

/** A seq in a session log: 0-based, dense. */
export const Seq = lazySchema((z) => z.number().int().min(0))
export type Seq = z.infer<typeof Seq>
