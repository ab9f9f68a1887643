// Live across Hosts (docs/architecture.md §4): one dedicated connection LISTENs on the engine's
// channels. When it breaks (PostgreSQL restarted), it reconnects with backoff and says so, so
// the store reloads its index and catches every live session up: notifications sent while it
// was away are lost, the rows are not.
import pg from 'pg'

export const eventsChannel = 'tangent_events'
export const sessionsChannel = 'tangent_sessions'

export interface ListenerOptions {
  config: pg.ClientConfig
  onNotification: (channel: string, payload: string) => void
  /** After a reconnect (not the first connect): what was missed must be read again. */
  onReconnect: () => void
  onError: (error: unknown) => void
}

export class Listener {
  readonly #options: ListenerOptions
  #client: pg.Client | null = null
  #closed = false
  #reconnecting: Promise<void> | null = null

  constructor(options: ListenerOptions) {
    this.#options = options
  }

  async start(): Promise<void> {
    await this.#connect()
  }

  async #connect(): Promise<void> {
    const client = new pg.Client(this.#options.config)
    client.on('error', (error) => this.#lost(client, error))
    client.on('end', () => this.#lost(client, null))
    client.on('notification', (message) => {
      if (this.#client === client) this.#options.onNotification(message.channel, message.payload ?? '')
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${eventsChannel}; LISTEN ${sessionsChannel}`)
    } catch (error) {
      client.removeAllListeners('end')
      await client.end().catch(() => undefined)
      throw error
    }
    if (this.#closed) {
      await client.end().catch(() => undefined)
      return
    }
    this.#client = client
  }

  #lost(client: pg.Client, error: unknown): void {
    if (this.#client !== client || this.#closed) return
    this.#client = null
    if (error) this.#options.onError(error)
    client.end().catch(() => undefined)
    this.#reconnecting ??= this.#reconnect().finally(() => {
      this.#reconnecting = null
    })
  }

  async #reconnect(): Promise<void> {
    let wait = 50
    while (!this.#closed) {
      await new Promise((resolve) => setTimeout(resolve, wait).unref())
      try {
        await this.#connect()
        if (!this.#closed) this.#options.onReconnect()
        return
      } catch {
        wait = Math.min(2000, wait * 2) // the server is still down: try again
      }
    }
  }

  async close(): Promise<void> {
    this.#closed = true
    const client = this.#client
    this.#client = null
    if (client) await client.end().catch(() => undefined)
  }
}
