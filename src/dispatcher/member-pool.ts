/**
 * What BalancedPool and RoundRobinPool share: a list of member dispatchers, a choice of member
 * per request made by the subclass, the queue for requests that arrive while every member is
 * busy, events passed up with this pool in the targets, and one close/destroy for all members
 * (those removed while requests were still running included).
 * @module
 */

import { emitSafely } from '../connection/user-callback.js'
import { DispatcherBase } from './dispatcher.js'
import type { Dispatcher } from './dispatcher.js'
import type { DispatchHandler, DispatchOptions } from '../contracts/dispatch-contract.js'
import { failDispatch } from '../handlers/fail-dispatch.js'
import { DispatchQueue } from './dispatch-queue.js'
import { sumPoolStats } from './stats.js'
import type { PoolStats } from './stats.js'
import { queueMicrotask } from '../runtime/timers.js'

/** One member dispatcher and whether it said it was busy (dispatch returned false) until its 'drain'. */
export interface PoolMember {
  readonly dispatcher: Dispatcher
  needDrain: boolean
}

const PASSED_UP = ['connect', 'disconnect', 'connectionError'] as const

/** The shared part of pools whose subclass decides which member takes each request. */
export abstract class MemberPool<M extends PoolMember> extends DispatcherBase {
  /** @internal The members requests may go to, in the order they were added. */
  protected readonly members: M[] = []
  /** Members taken out of the list whose requests may still run; closing waits for them too. */
  readonly #retiring = new Set<Dispatcher>()
  readonly #queue = new DispatchQueue()
  #needDrain = false

  /**
   * @internal The member that takes the next request, or null when every member is busy and no new one
   * may be made (the request then waits in the queue).
   */
  protected abstract pick (): M | null

  /** @internal The handler `member` receives for a request; the caller's own unless a subclass follows its requests. */
  protected handlerFor (member: M, handler: DispatchHandler): DispatchHandler {
    void member
    return handler
  }

  /** Requests waiting in this pool's own queue (every member busy). */
  get pending (): number { return this.#queue.length }

  /** Load figures summed over the members, as undici's `PoolStats` reports them. */
  get stats (): PoolStats { return sumPoolStats(this.members.map((m) => m.dispatcher), this.#queue.length) }

  protected override acceptDispatch (opts: DispatchOptions, handler: DispatchHandler): boolean {
    const member = this.#queue.length === 0 ? this.pick() : null
    if (member === null) {
      this.#queue.push(opts, handler)
      this.#needDrain = true
      return false
    }
    if (!DispatcherBase.forward(member.dispatcher, opts, this.handlerFor(member, handler))) {
      member.needDrain = true
      this.#needDrain = !this.members.some((m) => !m.needDrain)
    }
    return !this.#needDrain
  }

  /** @internal Adds a member: its events are passed up, its 'drain' takes queued requests. */
  protected addMember (member: M): void {
    const { dispatcher } = member
    this.members.push(member)
    dispatcher.on('drain', () => this.#onMemberDrain(member))
    for (const event of PASSED_UP) {
      dispatcher.on(event, (origin: unknown, targets: unknown, err?: Error) => {
        emitSafely(this, event, origin, [this, ...(Array.isArray(targets) ? targets : [dispatcher])], err)
      })
    }
    // Requests may be waiting for exactly this: a member that is not busy.
    if (this.#queue.length > 0) queueMicrotask(() => this.#onMemberDrain(member))
  }

  /** @internal Takes a member out of the choice; `close` lets its running requests finish first. */
  protected removeMember (member: M, how: 'close' | 'forget'): void {
    const i = this.members.indexOf(member)
    if (i !== -1) this.members.splice(i, 1)
    if (how === 'forget') return
    const { dispatcher } = member
    this.#retiring.add(dispatcher)
    dispatcher.close().catch(() => {}).finally(() => this.#retiring.delete(dispatcher))
  }

  #onMemberDrain (member: M): void {
    member.needDrain = false
    if (!this.members.includes(member)) return
    const queue = this.#queue
    while (queue.length > 0 && !member.needDrain) {
      const { opts, handler } = queue.shift()!
      try {
        if (!DispatcherBase.forward(member.dispatcher, opts, this.handlerFor(member, handler))) member.needDrain = true
      } catch (err) {
        // Queued requests were accepted already; a late failure reaches their handler.
        failDispatch(handler, err as Error)
      }
    }
    if (queue.length === 0 && this.#needDrain && !this.closed) {
      this.#needDrain = false
      if (this.listenerCount('drain') > 0) emitSafely(this, 'drain', member.dispatcher.defaultOrigin, [this, member.dispatcher])
    }
  }

  #allDispatchers (): Dispatcher[] {
    return [...this.members.map((m) => m.dispatcher), ...this.#retiring]
  }

  protected override closeGracefully (): Promise<void> {
    return this.#queue.whenEmpty().then(() => Promise.all(this.#allDispatchers().map((d) => d.close().catch((err: unknown) => {
      // A destroy() that came first settled the members; close() then resolves like it.
      if (!this.destroyed) throw err
    })))).then(() => undefined)
  }

  protected override destroyNow (error: Error): Promise<void> {
    this.#queue.failAll(error)
    return Promise.all(this.#allDispatchers().map((d) => d.destroy(error))).then(() => undefined)
  }
}
