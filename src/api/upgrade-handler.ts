/**
 * The handler behind `connect()` and `upgrade()`: settles with the socket once the server
 * switched protocols, and fails with the status when it answered with an ordinary response.
 * @module
 */

import type { Duplex } from 'node:stream'
import type { DispatchController, DispatchHandler, IncomingHeaders } from '../contracts/dispatch-contract.js'
import { SocketError } from '../errors.js'
import { abortReason, watchSignal } from './abort-signal.js'
import type { ApiSignal } from './abort-signal.js'
import { callUserCode } from '../connection/user-callback.js'
import { queueMicrotask } from '../runtime/timers.js'
import { DualShapeHandler } from '../handlers/dual-shape-handler.js'

/** What `connect()` and `upgrade()` resolve with; `TOpaque` is the type of the `opaque` option. */
export interface UpgradeData<TOpaque = null> {
  /** 101 for an upgrade, the 2xx status for CONNECT. */
  statusCode: number
  /** Response headers, lower-case names. */
  headers: IncomingHeaders
  /** The raw socket, now owned by the caller. */
  socket: Duplex
  /** The `opaque` option, handed back (null when none was given). */
  opaque: TOpaque
  /** Per-dispatch context from the dispatcher. */
  context: unknown
}

/** Callback of `connect()` / `upgrade()`: the socket and head, or an error (then with `{ opaque }` only). */
export type UpgradeCallback<TOpaque = null> = (err: Error | null, data: UpgradeData<TOpaque>) => void

/** Settles once: with the socket on a protocol switch, with an error otherwise. */
export class UpgradeHandler extends DualShapeHandler implements DispatchHandler {
  readonly #what: string
  readonly #opaque: unknown
  #callback: UpgradeCallback<unknown> | null
  #controller: DispatchController | null = null
  #context: unknown = undefined
  #abortedEarly: Error | null = null
  readonly #stopWatching: () => void

  /** @param what - names the request in error messages, e.g. `upgrade to websocket` */
  constructor (what: string, opaque: unknown, signal: ApiSignal | null | undefined, callback: UpgradeCallback<unknown>) {
    super()
    this.#what = what
    this.#opaque = opaque ?? null
    this.#callback = callback
    // As undici 8 does, an already aborted request fails with the signal's reason.
    if (signal != null && signal.aborted === true) this.#abortedEarly = abortReason(signal)
    this.#stopWatching = this.#abortedEarly !== null ? noop : watchSignal(signal, (reason) => {
      if (this.#controller !== null) this.#controller.abort(reason)
      else this.#abortedEarly = reason
    })
  }

  #fail (err: Error): void {
    this.#stopWatching()
    const callback = this.#callback
    this.#callback = null
    if (callback === null) return
    const opaque = this.#opaque
    queueMicrotask(() => callback(err, { opaque } as UpgradeData<unknown>))
  }

  onRequestStart (controller: DispatchController, context: unknown): void {
    this.#controller = controller
    this.#context = context
    if (this.#abortedEarly !== null) controller.abort(this.#abortedEarly)
  }

  onRequestUpgrade (_controller: DispatchController, statusCode: number, headers: IncomingHeaders, socket: Duplex): void {
    if (statusCode === 101 && headers.upgrade === undefined) {
      // RFC 9110 §15.2.2: a 101 names the protocol switched to; without it nothing says what
      // the socket now speaks (undici refuses it as a bad upgrade too).
      socket.destroy()
      this.#fail(new SocketError(`${this.#what} failed: the server answered 101 without an Upgrade header`))
      return
    }
    this.#stopWatching()
    const callback = this.#callback
    this.#callback = null
    if (callback === null) {
      socket.destroy()
      return
    }
    callUserCode(callback, null, { statusCode, headers, socket, opaque: this.#opaque, context: this.#context })
  }

  onResponseStart (controller: DispatchController, statusCode: number, _headers: IncomingHeaders, statusMessage?: string): void {
    const err = new SocketError(`${this.#what} was refused: the server answered ${statusCode}${statusMessage ? ` ${statusMessage}` : ''}`)
    this.#fail(err)
    controller.abort(err)
  }

  onResponseEnd (): void {
    this.#fail(new SocketError(`${this.#what} ended without a protocol switch`))
  }

  onResponseError (_controller: DispatchController, error: Error): void {
    this.#fail(error)
  }
}

function noop (): void {}
