/**
 * Keeps the memory tier coherent across processes with Redis client-side caching in broadcast
 * mode. One dedicated connection runs `CLIENT TRACKING ON REDIRECT <its own id> BCAST PREFIX
 * <url prefix>` and then subscribes to `__redis__:invalidate`: Redis then publishes to it the name
 * of every url key that any client changes (write, delete, tag invalidation, expiry, eviction;
 * `FLUSHDB` as a null list). In broadcast mode the tracking connection does not have to be the one
 * that reads, so the command connection (possibly the caller's) is never touched. RESP2 redirect
 * works on any Redis >= 6 and on Valkey with no server configuration, unlike keyspace
 * notifications, which need `notify-keyspace-events` (often locked on managed Redis).
 *
 * Tracking lives and dies with the connection; after a reconnect it is set up again, and until
 * that is confirmed the tier is off and empty, because invalidations sent meanwhile were lost.
 * A connection can also die silently (a network partition sends no FIN), so it is pinged every
 * `heartbeatMs`; an unanswered ping turns the tier off and reconnects.
 * @module
 */

import { debuglog } from 'node:util'
import type { Redis } from 'ioredis'
import { StoreTimeoutError, runtimeTimers } from '../../src/handler.js'
import type { MemoryTier } from './memory-tier.js'

const log = debuglog('conduit:cache')

/** The pub/sub channel Redis publishes invalidations on for redirected RESP2 tracking. */
export const INVALIDATE_CHANNEL = '__redis__:invalidate'

/** Wires a dedicated tracking connection to a memory tier. */
export class Tracking {
  #connection: Redis
  #prefix: string
  #tier: MemoryTier
  #report: (err: Error) => void
  #epoch = 0
  #stopped = false
  #beating = false
  #timeoutMs: number
  #heartbeat: NodeJS.Timeout
  #listeners: Array<[string, (...args: any[]) => void]> = []

  constructor (
    connection: Redis, prefix: string, tier: MemoryTier, report: (err: Error) => void,
    timing: { heartbeatMs: number, timeoutMs: number }
  ) {
    this.#connection = connection
    this.#prefix = prefix
    this.#tier = tier
    this.#report = report
    this.#timeoutMs = timing.timeoutMs
    this.#heartbeat = runtimeTimers.setInterval(() => this.#beat(), timing.heartbeatMs)
    this.#heartbeat.unref()
    this.#on('ready', () => { void this.#start() })
    this.#on('close', () => this.#lost())
    this.#on('messageBuffer', (channel: Buffer, keys: Buffer[] | null) => this.#onInvalidate(channel, keys))
    if (connection.status === 'ready') void this.#start()
  }

  #on (event: string, listener: (...args: any[]) => void): void {
    this.#connection.on(event, listener)
    this.#listeners.push([event, listener])
  }

  #lost (): void {
    this.#epoch++
    if (this.#tier.active) log('redis store: memory tier off, invalidation connection lost')
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

  #beat (): void {
    if (this.#beating || !this.#tier.active) return
    this.#beating = true
    const epoch = this.#epoch
    let done = false
    const finish = (err?: Error): void => {
      if (done) return
      done = true
      runtimeTimers.clearTimeout(timer)
      this.#beating = false
      if (err === undefined || epoch !== this.#epoch || this.#stopped) return
      this.#report(err)
      this.#lost()
      this.#connection.disconnect(true)
    }
    const timer = runtimeTimers.setTimeout(() => finish(new StoreTimeoutError(
      `RedisCacheStore: the invalidation connection did not answer PING within ${this.#timeoutMs} ms; memory tier off until it reconnects`
    )), this.#timeoutMs)
    timer.unref()
    this.#connection.ping().then(() => finish(), (err: Error) => finish(err))
  }

  async #start (): Promise<void> {
    const epoch = ++this.#epoch
    this.#tier.setActive(false)
    try {
      const connection = this.#connection
      // Everything before SUBSCRIBE: a subscribed RESP2 connection accepts no other command.
      const id = await connection.client('ID')
      await connection.call('CLIENT', 'TRACKING', 'ON', 'REDIRECT', id, 'BCAST', 'PREFIX', this.#prefix)
      await connection.subscribe(INVALIDATE_CHANNEL)
      if (epoch === this.#epoch && !this.#stopped) {
        this.#tier.setActive(true)
        log('redis store: memory tier on, tracking keys under %s', this.#prefix)
      }
    } catch (err) {
      if (!this.#stopped) this.#report(err as Error)
    }
  }

  /** Detaches from the connection and turns the tier off; the caller closes the connection. */
  stop (): void {
    this.#stopped = true
    runtimeTimers.clearInterval(this.#heartbeat)
    this.#tier.setActive(false)
    for (const [event, listener] of this.#listeners) this.#connection.off(event, listener)
    this.#listeners = []
  }
}
