// What the store noticed and went on from (docs/architecture.md §4): kept for `warnings()`, and
// each told to `onWarning` as it comes. Every warning names the database (its redacted URL).
import type { StoreWarningLike } from '@tangent/core'

export class StoreWarnings {
  /** The database, as warnings name it. */
  readonly location: string
  readonly #warnings: StoreWarningLike[] = []
  readonly #onWarning: ((warning: StoreWarningLike) => void) | undefined

  constructor(location: string, onWarning: ((warning: StoreWarningLike) => void) | undefined) {
    this.location = location
    this.#onWarning = onWarning
  }

  list(): StoreWarningLike[] {
    return [...this.#warnings]
  }

  warn(warning: StoreWarningLike): void {
    this.#warnings.push(warning)
    this.#onWarning?.(warning)
  }

  /** A failure the store carries on past, as a warning of `kind` saying what follows from it. */
  warnError(kind: string, error: unknown, consequence?: string): void {
    this.warn({
      kind,
      file: this.location,
      message: `${(error as Error).message ?? String(error)}${consequence ? `: ${consequence}` : ''}`,
    })
  }
}
