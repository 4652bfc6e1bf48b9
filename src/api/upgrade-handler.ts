/**
 * The handler behind `connect()` and `upgrade()`: resolves with the socket once the server
 * switched protocols, and fails with the status when it answered with an ordinary response.
 * @module
 */

import type { Duplex } from 'node:stream'
import type { DispatchController, DispatchHandler, IncomingHeaders } from '../handler.js'
import { RequestAbortedError, SocketError } from '../errors.js'

/** What `connect()` and `upgrade()` resolve with. */
export interface UpgradeData {
  /** 101 for an upgrade, the 2xx status for CONNECT. */
  statusCode: number
  /** Response headers, lower-case names. */
  headers: IncomingHeaders
  /** The raw socket, now owned by the caller. */
  socket: Duplex
  /** The `opaque` option, handed back. */
  opaque: unknown
}

type Settle = (err: Error | null, data?: UpgradeData) => void

/** Settles once: with the socket on a protocol switch, with an error otherwise. */
export class UpgradeHandler implements DispatchHandler {
  readonly #what: string
  readonly #opaque: unknown
  readonly #signal: AbortSignal | null
  #settle: Settle | null
  #onAbort: (() => void) | null = null

  constructor (what: string, opaque: unknown, signal: AbortSignal | null | undefined, settle: Settle) {
    this.#what = what
    this.#opaque = opaque
    this.#signal = signal ?? null
    this.#settle = settle
  }

  #done (err: Error | null, data?: UpgradeData): void {
    if (this.#onAbort !== null) this.#signal?.removeEventListener('abort', this.#onAbort)
    const settle = this.#settle
    this.#settle = null
    settle?.(err, data)
  }

  onRequestStart (controller: DispatchController): void {
    const signal = this.#signal
    if (signal === null) return
    const abort = (): void => controller.abort(signal.reason instanceof Error ? signal.reason : new RequestAbortedError())
    if (signal.aborted) {
      abort()
      return
    }
    this.#onAbort = abort
    signal.addEventListener('abort', abort, { once: true })
  }

  onRequestUpgrade (_controller: DispatchController, statusCode: number, headers: IncomingHeaders, socket: Duplex): void {
    if (this.#settle === null) {
      socket.destroy()
      return
    }
    this.#done(null, { statusCode, headers, socket, opaque: this.#opaque })
  }

  onResponseStart (controller: DispatchController, statusCode: number, _headers: IncomingHeaders, statusMessage?: string): void {
    const err = new SocketError(`${this.#what} was refused: the server answered ${statusCode}${statusMessage ? ` ${statusMessage}` : ''}`)
    this.#done(err)
    controller.abort(err)
  }

  onResponseEnd (): void {
    this.#done(new SocketError(`${this.#what} ended without a protocol switch`))
  }

  onResponseError (_controller: DispatchController, error: Error): void {
    this.#done(error)
  }
}
