// The WebSocket connections of a Host and their session subscriptions: broadcasts go to
// every connection (serialised once); a subscription (session-fanout.ts) is held here per
// connection so it ends when the client unsubscribes, disconnects or the session goes.
import type { NotificationName, NotificationParams } from '@tangent/protocol'
import { encodeNotification } from './outgoing.js'

/** One client connection that can receive notifications (a WebSocket). */
export interface Connection {
  /** Sends one message already serialised (JSON text); messages reach the client in the order of these calls. */
  send(message: Buffer): void
  /** Bytes queued for this client and not yet handed to the network (ws `bufferedAmount`). */
  readonly bufferedAmount: number
  /** Runs `work`; what it sends goes out in as few writes as possible (optional). */
  batch?(work: () => void): void
}

/** Ends one subscription. */
export type Unsubscribe = () => void

export class ConnectionHub {
  readonly #connections = new Set<Connection>()
  /** Per connection: session id → its unsubscribe (null while the subscription is being made). */
  readonly #subscriptions = new Map<Connection, Map<string, Unsubscribe | null>>()
  /** Per connection: what else ends with it (its file sources, docs/protocol.md). */
  readonly #onRemove = new Map<Connection, Set<() => void>>()

  add(connection: Connection): void {
    this.#connections.add(connection)
    this.#subscriptions.set(connection, new Map())
  }

  /** Forgets a closed connection and ends its subscriptions. */
  remove(connection: Connection): void {
    this.#connections.delete(connection)
    for (const unsubscribe of this.#subscriptions.get(connection)?.values() ?? []) unsubscribe?.()
    this.#subscriptions.delete(connection)
    const cleanups = this.#onRemove.get(connection)
    this.#onRemove.delete(connection)
    for (const cleanup of cleanups ?? []) cleanup()
  }

  /** True while the connection is open (added and not removed). */
  has(connection: Connection): boolean {
    return this.#connections.has(connection)
  }

  /**
   * Runs `cleanup` when the connection is removed (closed); returns the function that cancels
   * that. A connection already removed runs it at once.
   */
  onRemove(connection: Connection, cleanup: () => void): () => void {
    if (!this.#connections.has(connection)) {
      cleanup()
      return () => {}
    }
    let cleanups = this.#onRemove.get(connection)
    if (!cleanups) {
      cleanups = new Set()
      this.#onRemove.set(connection, cleanups)
    }
    cleanups.add(cleanup)
    return () => {
      cleanups.delete(cleanup)
    }
  }

  get size(): number {
    return this.#connections.size
  }

  /** One notification to every connection, serialised once. */
  broadcast<N extends NotificationName>(method: N, params: NotificationParams<N>): void {
    if (this.#connections.size === 0) return
    const message = encodeNotification(method, params)
    for (const connection of this.#connections) connection.send(message)
  }

  hasSubscribers(sessionId: string): boolean {
    for (const sessions of this.#subscriptions.values()) if (sessions.has(sessionId)) return true
    return false
  }

  isSubscribed(connection: Connection, sessionId: string): boolean {
    return this.#subscriptions.get(connection)?.has(sessionId) ?? false
  }

  /**
   * Subscribes a connection to a session once: `open` makes the subscription and returns
   * its unsubscribe. A second call for the same pair does nothing. If the connection closed
   * or unsubscribed meanwhile, the new subscription is ended at once.
   */
  async subscribe(
    connection: Connection,
    sessionId: string,
    open: () => Promise<Unsubscribe>,
  ): Promise<void> {
    const sessions = this.#subscriptions.get(connection)
    if (!sessions || sessions.has(sessionId)) return
    sessions.set(sessionId, null)
    let unsubscribe: Unsubscribe
    try {
      unsubscribe = await open()
    } catch (error) {
      if (sessions.get(sessionId) === null) sessions.delete(sessionId)
      throw error
    }
    if (this.#subscriptions.get(connection) !== sessions || sessions.get(sessionId) !== null) {
      unsubscribe()
      return
    }
    sessions.set(sessionId, unsubscribe)
  }

  unsubscribe(connection: Connection, sessionId: string): void {
    const sessions = this.#subscriptions.get(connection)
    const unsubscribe = sessions?.get(sessionId)
    sessions?.delete(sessionId)
    unsubscribe?.()
  }

  /** A deleted session: nobody stays subscribed to it. */
  dropSession(sessionId: string): void {
    for (const connection of this.#connections) this.unsubscribe(connection, sessionId)
  }
}
