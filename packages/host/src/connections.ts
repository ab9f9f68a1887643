// The WebSocket connections of a Host and their session subscriptions: broadcasts go to
// every connection, session events and deltas only to the session's subscribers.
import type { NotificationName, NotificationParams } from '@tangent/protocol'

/** One client connection that can receive notifications (a WebSocket). */
export interface Connection {
  /** Sends one notification; messages reach the client in the order of these calls. */
  notify<N extends NotificationName>(method: N, params: NotificationParams<N>): void
}

export class ConnectionHub {
  readonly #connections = new Set<Connection>()
  readonly #subscribers = new Map<string, Set<Connection>>()
  readonly #subscriptionsOf = new Map<Connection, Set<string>>()

  add(connection: Connection): void {
    this.#connections.add(connection)
    this.#subscriptionsOf.set(connection, new Set())
  }

  /** Forgets a closed connection and its subscriptions. */
  remove(connection: Connection): void {
    this.#connections.delete(connection)
    for (const sessionId of this.#subscriptionsOf.get(connection) ?? [])
      this.unsubscribe(connection, sessionId)
    this.#subscriptionsOf.delete(connection)
  }

  get size(): number {
    return this.#connections.size
  }

  broadcast<N extends NotificationName>(method: N, params: NotificationParams<N>): void {
    for (const connection of this.#connections) connection.notify(method, params)
  }

  /** Sends to the subscribers of one session. */
  notifySubscribers<N extends NotificationName>(
    sessionId: string,
    method: N,
    params: NotificationParams<N>,
  ): void {
    const subscribers = this.#subscribers.get(sessionId)
    if (subscribers) for (const connection of subscribers) connection.notify(method, params)
  }

  hasSubscribers(sessionId: string): boolean {
    return (this.#subscribers.get(sessionId)?.size ?? 0) > 0
  }

  isSubscribed(connection: Connection, sessionId: string): boolean {
    return this.#subscribers.get(sessionId)?.has(connection) ?? false
  }

  subscribe(connection: Connection, sessionId: string): void {
    let subscribers = this.#subscribers.get(sessionId)
    if (!subscribers) {
      subscribers = new Set()
      this.#subscribers.set(sessionId, subscribers)
    }
    subscribers.add(connection)
    this.#subscriptionsOf.get(connection)?.add(sessionId)
  }

  unsubscribe(connection: Connection, sessionId: string): void {
    const subscribers = this.#subscribers.get(sessionId)
    subscribers?.delete(connection)
    if (subscribers?.size === 0) this.#subscribers.delete(sessionId)
    this.#subscriptionsOf.get(connection)?.delete(sessionId)
  }

  /** A deleted session: nobody stays subscribed to it. */
  dropSession(sessionId: string): void {
    for (const connection of this.#subscribers.get(sessionId) ?? [])
      this.#subscriptionsOf.get(connection)?.delete(sessionId)
    this.#subscribers.delete(sessionId)
  }
}
