/**
 * Miss coalescing across processes and hosts. The first process to miss a URL takes a short-lived
 * lease key (`SET NX PX`, in the entry's slot on a cluster) and fetches from the origin; every
 * other process that misses it meanwhile waits for the entry instead. The leaseholder releases
 * the lease when its write lands, or when the response turned out not storable, and publishes the
 * outcome on one pub/sub channel (which a cluster carries to every node). Waiters also check the
 * lease every {@link POLL_MS} ms, so a lost message costs a poll, and a leaseholder that died
 * (its lease expired unreleased) is replaced by one of the waiters taking the lease over. Every
 * wait is bounded by `waitMs`; past it the waiter fetches on its own.
 * @module
 */

import { createHash, randomBytes } from 'node:crypto'
import type { Cluster, Redis } from 'ioredis'
import type { FailOpen } from './fail-open.js'
import { runScript } from './scripts.js'
import { runtimeTimers } from '../../src/handler.js'
import type { Script } from './scripts.js'

/** How often a waiter checks that the lease it waits on still exists. */
export const POLL_MS = 100

/** Why a wait for a lease ended. */
export type WaitOutcome = 'filled' | 'abandoned' | 'expired' | 'timeout'

/** Resolved `coalesce` option of the Redis store. */
export interface CoalesceSettings {
  /** Longest a miss waits for another process's fetch. */
  waitMs: number
  /** Life of a lease: past it a leaseholder is taken for dead. */
  leaseMs: number
}

const RELEASE_SOURCE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
`

// Taking the lease and checking the URL's index is one step: a fill landing between this
// process's read and its lease would otherwise send it to the origin a second time.
const ACQUIRE_SOURCE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 'stored' end
if redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2], 'NX') then return 'leased' end
return 'held'
`

const script = (source: string): Script => ({ source, sha: createHash('sha1').update(source).digest('hex') })

/** KEYS[1] lease; ARGV: token, channel, message. Frees the lease if still ours, then tells the waiters. */
const RELEASE_SCRIPT = script(RELEASE_SOURCE)

/** KEYS[1] url index, KEYS[2] lease; ARGV: token, life (ms). `stored`, `leased` or `held` (by another). */
const ACQUIRE_SCRIPT = script(ACQUIRE_SOURCE)

interface Group {
  waiters: Set<(outcome: WaitOutcome) => void>
  poll: NodeJS.Timeout
}

/** The leases of one store: those it holds, and the waits of its misses on others'. */
export class MissLeases {
  #client: Redis | Cluster
  #subscriber: Redis | Cluster
  #failOpen: FailOpen
  #settings: CoalesceSettings
  #channel: string
  #held = new Map<string, { token: string, timer: NodeJS.Timeout }>()
  #groups = new Map<string, Group>()
  #onMessage = (channel: string, message: string): void => {
    if (channel !== this.#channel) return
    const space = message.indexOf(' ')
    const outcome = message.slice(0, space)
    if (outcome === 'filled' || outcome === 'abandoned') this.#wake(message.slice(space + 1), outcome)
  }

  constructor (client: Redis | Cluster, failOpen: FailOpen, settings: CoalesceSettings, channel: string, report: (err: Error) => void) {
    this.#client = client
    this.#failOpen = failOpen
    this.#settings = settings
    this.#channel = channel
    // Subscribing takes a connection of its own; it queues until connected, as tracking's does.
    const subscriber = this.#subscriber = client.isCluster
      ? (client as Cluster).duplicate(undefined, { enableOfflineQueue: true, lazyConnect: false })
      : (client as Redis).duplicate({ enableOfflineQueue: true, lazyConnect: false, autoResubscribe: true })
    subscriber.on('error', report)
    subscriber.on('message', this.#onMessage)
    subscriber.subscribe(channel).catch(report)
  }

  /** The wait settings. */
  get settings (): CoalesceSettings {
    return this.#settings
  }

  /**
   * Tries to take the lease of the URL indexed at `urlKey`: `'leased'` when this store now fetches
   * for everyone, `'held'` when another process does, `'stored'` when the URL has an entry by now
   * (read it again), `undefined` when Redis could not say (the caller fetches, failing open).
   */
  async acquire (urlKey: string, lease: string): Promise<'leased' | 'held' | 'stored' | undefined> {
    const token = randomBytes(8).toString('hex')
    const reply = await this.#failOpen.run('lease', () => runScript(this.#client, ACQUIRE_SCRIPT, [urlKey, lease], [token, this.#settings.leaseMs], false))
    if (reply !== 'leased') return reply === 'held' || reply === 'stored' ? reply : undefined
    this.#forget(lease)
    // Past its life the lease is someone else's to take; nothing of it is kept here either.
    const timer = runtimeTimers.setTimeout(() => this.#held.delete(lease), this.#settings.leaseMs)
    timer.unref()
    this.#held.set(lease, { token, timer })
    return 'leased'
  }

  #forget (lease: string): { token: string } | undefined {
    const held = this.#held.get(lease)
    if (held === undefined) return undefined
    runtimeTimers.clearTimeout(held.timer)
    this.#held.delete(lease)
    return held
  }

  /** Frees a lease this store holds (nothing otherwise) and tells the waiters how the fetch ended. */
  async release (lease: string, outcome: 'filled' | 'abandoned'): Promise<void> {
    const held = this.#forget(lease)
    if (held === undefined) return
    await this.#failOpen.run('lease', () =>
      runScript(this.#client, RELEASE_SCRIPT, [lease], [held.token, this.#channel, `${outcome} ${lease}`], false))
  }

  /** Waits until the lease's fetch ends, the lease is gone, or `ms` pass. */
  wait (lease: string, ms: number): Promise<WaitOutcome> {
    return new Promise((resolve) => {
      let group = this.#groups.get(lease)
      if (group === undefined) {
        const poll = runtimeTimers.setInterval(() => { void this.#check(lease) }, POLL_MS)
        poll.unref()
        this.#groups.set(lease, group = { waiters: new Set(), poll })
      }
      const waiters = group.waiters
      const timer = runtimeTimers.setTimeout(() => {
        waiters.delete(done)
        this.#dropIfEmpty(lease)
        resolve('timeout')
      }, ms)
      timer.unref()
      const done = (outcome: WaitOutcome): void => {
        runtimeTimers.clearTimeout(timer)
        resolve(outcome)
      }
      waiters.add(done)
    })
  }

  async #check (lease: string): Promise<void> {
    const exists = await this.#failOpen.run('lease', () => this.#client.exists(lease))
    if (exists === 0) this.#wake(lease, 'expired')
  }

  #wake (lease: string, outcome: WaitOutcome): void {
    const group = this.#groups.get(lease)
    if (group === undefined) return
    runtimeTimers.clearInterval(group.poll)
    this.#groups.delete(lease)
    for (const waiter of group.waiters) waiter(outcome)
  }

  #dropIfEmpty (lease: string): void {
    const group = this.#groups.get(lease)
    if (group === undefined || group.waiters.size > 0) return
    runtimeTimers.clearInterval(group.poll)
    this.#groups.delete(lease)
  }

  /** Ends every wait (as timed out) and closes the subscriber connection. */
  close (): void {
    for (const lease of [...this.#groups.keys()]) this.#wake(lease, 'timeout')
    for (const lease of [...this.#held.keys()]) this.#forget(lease)
    this.#subscriber.off('message', this.#onMessage)
    this.#subscriber.disconnect()
  }
}
