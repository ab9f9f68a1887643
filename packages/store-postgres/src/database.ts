// The engine's connection pool (docs/architecture.md §4): a transaction on one connection, and
// retries while the connection fails (the server restarting), for the retry window.
import type pg from 'pg'
import { isConnectionError } from './errors.js'

export class Database {
  readonly pool: pg.Pool
  readonly #retryWindowMs: number
  /** A closed store retries nothing. */
  readonly #isClosed: () => boolean

  constructor(pool: pg.Pool, retryWindowMs: number, isClosed: () => boolean) {
    this.pool = pool
    this.#retryWindowMs = retryWindowMs
    this.#isClosed = isClosed
  }

  /** Runs `work` in a transaction on one connection. */
  async transaction<T>(work: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
    const client = await this.pool.connect()
    let broken: Error | undefined
    try {
      await client.query(begin)
      const result = await work(client)
      await client.query('COMMIT')
      return result
    } catch (error) {
      if (isConnectionError(error)) broken = error as Error
      else await client.query('ROLLBACK').catch(() => undefined)
      throw error
    } finally {
      client.release(broken)
    }
  }

  /** Retries `work` while the connection fails (the server restarting), for the retry window. */
  async withRetry<T>(work: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.#retryWindowMs
    let wait = 50
    for (;;) {
      try {
        return await work()
      } catch (error) {
        if (!isConnectionError(error) || this.#isClosed() || Date.now() + wait > deadline) throw error
        await new Promise((resolve) => setTimeout(resolve, wait))
        wait = Math.min(2000, wait * 2)
      }
    }
  }
}
