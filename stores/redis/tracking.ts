/**
 * Keeps the memory tier coherent across processes with Redis client-side caching in broadcast
 * mode: `CLIENT TRACKING ON REDIRECT <subscriber> BCAST PREFIX <url prefix>` on the command
 * connection makes Redis publish the name of every url key that any client changes (write,
 * delete, tag invalidation, expiry, eviction, `FLUSHDB`) on `__redis__:invalidate`, which a
 * second connection receives (RESP2 redirect, so it works on any Redis >= 6 or Valkey, with no
 * server configuration, unlike keyspace notifications which need `notify-keyspace-events` set).
 *
 * Tracking belongs to a connection and the redirect names a connection id, so both are redone
 * after either connection reconnects; until that is confirmed the tier is off and empty, because
 * invalidations sent meanwhile were lost.
 * @module
 */

import type { Redis } from 'ioredis'
import type { MemoryTier } from './memory-tier.js'

/** The pub/sub channel Redis publishes invalidations on for redirected RESP2 tracking. */
export const INVALIDATE_CHANNEL = '__redis__:invalidate'

/** Wires a command connection and a subscriber connection to a memory tier. */
export class Tracking {
  #command: Redis
  #subscriber: Redis
  #prefix: string
  #tier: MemoryTier
  #report: (err: Error) => void
  #subscriberId: number | undefined
  #attempt = 0
  #subscriberEpoch = 0
  #stopped = false
  #listeners: Array<[Redis, string, (...args: any[]) => void]> = []

  constructor (command: Redis, subscriber: Redis, prefix: string, tier: MemoryTier, report: (err: Error) => void) {
    this.#command = command
    this.#subscriber = subscriber
    this.#prefix = prefix
    this.#tier = tier
    this.#report = report
    this.#on(subscriber, 'ready', () => { void this.#subscribe() })
    this.#on(subscriber, 'close', () => this.#lost(true))
    this.#on(subscriber, 'messageBuffer', (channel: Buffer, keys: Buffer[] | null) => this.#onInvalidate(channel, keys))
    this.#on(command, 'ready', () => { void this.#enable() })
    this.#on(command, 'close', () => this.#lost(false))
    if (subscriber.status === 'ready') void this.#subscribe()
  }

  #on (emitter: Redis, event: string, listener: (...args: any[]) => void): void {
    emitter.on(event, listener)
    this.#listeners.push([emitter, event, listener])
  }

  #lost (subscriber: boolean): void {
    if (subscriber) {
      this.#subscriberId = undefined
      this.#subscriberEpoch++
    }
    this.#attempt++
    this.#tier.setActive(false)
  }

  #onInvalidate (channel: Buffer, keys: Buffer[] | null): void {
    if (channel.toString() !== INVALIDATE_CHANNEL) return
    // A null key list means the whole keyspace changed (FLUSHALL, FLUSHDB).
    if (keys === null) {
      this.#tier.clear()
      return
    }
    for (const key of keys) this.#tier.invalidate(key.toString())
  }

  async #subscribe (): Promise<void> {
    const epoch = ++this.#subscriberEpoch
    try {
      // The id must be read before SUBSCRIBE: a subscribed RESP2 connection accepts no other command.
      const id = Number(await this.#subscriber.client('ID'))
      await this.#subscriber.subscribe(INVALIDATE_CHANNEL)
      if (epoch !== this.#subscriberEpoch || this.#stopped) return
      this.#subscriberId = id
      await this.#enable()
    } catch (err) {
      this.#report(err as Error)
    }
  }

  async #enable (): Promise<void> {
    const id = this.#subscriberId
    if (id === undefined || this.#stopped || this.#command.status !== 'ready') return
    const attempt = ++this.#attempt
    // Off while tracking is reset: a change made between OFF and ON would not be announced.
    this.#tier.setActive(false)
    try {
      await this.#command.call('CLIENT', 'TRACKING', 'OFF')
      await this.#command.call('CLIENT', 'TRACKING', 'ON', 'REDIRECT', id, 'BCAST', 'PREFIX', this.#prefix)
      if (attempt === this.#attempt && !this.#stopped && this.#subscriberId === id) this.#tier.setActive(true)
    } catch (err) {
      this.#report(err as Error)
    }
  }

  /** Detaches from both connections and turns tracking off on the command connection. */
  async stop (): Promise<void> {
    this.#stopped = true
    this.#tier.setActive(false)
    for (const [emitter, event, listener] of this.#listeners) emitter.off(event, listener)
    this.#listeners = []
    if (this.#command.status === 'ready') {
      try {
        await this.#command.call('CLIENT', 'TRACKING', 'OFF')
      } catch {
        // The connection is going away; tracking ends with it.
      }
    }
  }
}
