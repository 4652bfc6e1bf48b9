/**
 * The handler used by both `dispatch` clients (conduit and undici): the dispatch hook shape the
 * two share, doing only what any real handler must (check the status, count body bytes).
 * @module
 */

import type { RequestDone } from './measure.js'

/** A controller as far as this handler needs one. */
interface Controller {
  abort (reason: Error): void
}

/** Receives one response and reports its byte count to `done`. */
export class DispatchSink {
  readonly #done: RequestDone
  #bytes = 0

  constructor (done: RequestDone) {
    this.#done = done
  }

  onRequestStart (): void {}

  onResponseStart (controller: Controller, statusCode: number): void {
    if (statusCode !== 200) controller.abort(new Error(`unexpected status ${statusCode}`))
  }

  onResponseData (_controller: Controller, chunk: Buffer): void {
    this.#bytes += chunk.length
  }

  onResponseEnd (): void {
    this.#done(null, this.#bytes)
  }

  onResponseError (_controller: Controller, err: Error): void {
    this.#done(err, this.#bytes)
  }
}
