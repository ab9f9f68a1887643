// Serialises work on one shadow index per directory, and lets `gc` run alone:
// `git gc --prune=now` must never see a blob that is staged but not yet in a tree.

/** Resolves when `promise` settles; its outcome is delivered to its own caller, not here. */
function settled(promise: Promise<unknown>): Promise<void> {
  return promise.then(
    () => undefined,
    () => undefined,
  )
}

export class OperationQueue {
  readonly #tails = new Map<string, Promise<void>>()
  #barrier: Promise<void> = Promise.resolve()

  /** Runs `operation` after every earlier operation on `key` and after any pending exclusive one. */
  run<T>(key: string, operation: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve()
    const result = Promise.all([previous, this.#barrier]).then(operation)
    const tail = settled(result)
    this.#tails.set(key, tail)
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key)
    })
    return result
  }

  /** Runs `operation` once all queued operations are done; later ones wait for it. */
  exclusive<T>(operation: () => Promise<T>): Promise<T> {
    const result = Promise.all([...this.#tails.values(), this.#barrier]).then(operation)
    this.#barrier = settled(result)
    return result
  }
}
