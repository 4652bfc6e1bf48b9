/**
 * A response whose status may be retried, kept from the caller while the retry decision is
 * pending: paused and its early chunks held (so it can still be handed over whole), or, once a
 * retry is decided, drained so its connection can carry the next attempt.
 * @module
 */

import type { DispatchController, IncomingHeaders } from '../../src/handler.js'

/** A failing response held back from the caller. */
export class HeldResponse {
  readonly controller: DispatchController
  readonly statusCode: number
  readonly headers: IncomingHeaders
  readonly statusMessage: string | undefined
  /** Body chunks that arrived before the decision. */
  chunks: Buffer[] = []
  /** Trailers, once the response ended. */
  ended: IncomingHeaders | null = null
  /** The error the response broke off with, if it did. */
  error: Error | null = null
  /** True once a retry was decided: the rest of the body is dropped. */
  draining = false

  /** Pauses the response at once; nothing reaches the caller until it is handed over. */
  constructor (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage: string | undefined) {
    this.controller = controller
    this.statusCode = statusCode
    this.headers = headers
    this.statusMessage = statusMessage
    controller.pause()
  }

  /** True once the response ended or broke off. */
  get settled (): boolean {
    return this.ended !== null || this.error !== null
  }

  /** Keeps a chunk, unless the body is being drained. */
  hold (chunk: Buffer): void {
    if (!this.draining) this.chunks.push(chunk)
  }

  /** Drops what was held and reads the rest of the body away. */
  drain (): void {
    this.draining = true
    this.chunks = []
    this.controller.resume()
  }
}
