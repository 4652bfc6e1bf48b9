/**
 * A dispatch handler for transport tests: records every hook call and resolves once the
 * dispatch ends, so tests can check the handler invariants (start once, exactly one end).
 */

import type { Duplex } from 'node:stream'
import type { DispatchController, DispatchHandler, IncomingHeaders } from '../../../src/handler.js'

export class RecordingHandler implements DispatchHandler {
  events: string[] = []
  controller: DispatchController | null = null
  statusCode = 0
  headers: IncomingHeaders = {}
  chunks: Buffer[] = []
  trailers: IncomingHeaders | null = null
  error: Error | null = null
  socket: Duplex | null = null
  readonly done: Promise<void>
  #resolve!: () => void
  /** Called on each body chunk (after recording), e.g. to pause. */
  onChunk: ((controller: DispatchController, chunk: Buffer) => void) | null = null

  constructor () {
    this.done = new Promise((resolve) => { this.#resolve = resolve })
  }

  get body (): string {
    return Buffer.concat(this.chunks).toString()
  }

  onRequestStart (controller: DispatchController): void {
    this.controller = controller
    this.events.push('start')
  }

  onRequestUpgrade (_controller: DispatchController, statusCode: number, headers: IncomingHeaders, socket: Duplex): void {
    this.events.push('upgrade')
    this.statusCode = statusCode
    this.headers = headers
    this.socket = socket
    this.#resolve()
  }

  onResponseStart (_controller: DispatchController, statusCode: number, headers: IncomingHeaders): void {
    this.events.push('response')
    this.statusCode = statusCode
    this.headers = headers
  }

  onResponseData (controller: DispatchController, chunk: Buffer): void {
    if (this.events.at(-1) !== 'data') this.events.push('data')
    this.chunks.push(chunk)
    this.onChunk?.(controller, chunk)
  }

  onResponseEnd (_controller: DispatchController, trailers: IncomingHeaders): void {
    this.events.push('end')
    this.trailers = trailers
    this.#resolve()
  }

  onResponseError (_controller: DispatchController, error: Error): void {
    this.events.push('error')
    this.error = error
    this.#resolve()
  }
}
