/**
 * A dispatcher that answers every dispatch from a script, without sockets. Used to test the
 * dispatch contract itself (compose order, handler adaptation, request()) in isolation;
 * everything that touches the network is tested against real servers elsewhere.
 */

import { Dispatcher } from '../../src/dispatcher/dispatcher.js'
import type { CloseCallback } from '../../src/dispatcher/dispatcher.js'
import { SimpleController, toDispatchHandler } from '../../src/handler.js'
import type { DispatchHandler, DispatchOptions, IncomingHeaders, LegacyDispatchHandler } from '../../src/handler.js'

/** One scripted answer. */
export interface ScriptedResponse {
  statusCode?: number
  headers?: IncomingHeaders
  chunks?: Array<string | Buffer>
  trailers?: IncomingHeaders
  error?: Error
}

export class ScriptedDispatcher extends Dispatcher {
  readonly seen: DispatchOptions[] = []
  closed = false
  destroyedWith: Error | null | undefined = undefined
  paused = 0
  resumed = 0
  aborted: Error | null = null
  #answer: (opts: DispatchOptions) => ScriptedResponse

  constructor (answer: (opts: DispatchOptions) => ScriptedResponse = () => ({ statusCode: 200, chunks: ['ok'] })) {
    super()
    this.#answer = answer
  }

  override dispatch (opts: DispatchOptions, legacyOrNew: DispatchHandler | LegacyDispatchHandler): boolean {
    const handler = toDispatchHandler(legacyOrNew)
    this.seen.push(opts)
    const answer = this.#answer(opts)
    const controller = new SimpleController({
      abort: (reason) => { this.aborted = reason },
      pause: () => { this.paused++ },
      resume: () => { this.resumed++ }
    })
    queueMicrotask(() => {
      handler.onRequestStart?.(controller, { scripted: true })
      if (controller.aborted) { handler.onResponseError?.(controller, controller.reason!); return }
      if (answer.error) { handler.onResponseError?.(controller, answer.error); return }
      handler.onResponseStart?.(controller, answer.statusCode ?? 200, answer.headers ?? {}, 'OK')
      for (const chunk of answer.chunks ?? []) {
        if (controller.aborted) { handler.onResponseError?.(controller, controller.reason!); return }
        handler.onResponseData?.(controller, Buffer.from(chunk))
      }
      if (controller.aborted) { handler.onResponseError?.(controller, controller.reason!); return }
      handler.onResponseEnd?.(controller, answer.trailers ?? {})
    })
    return true
  }

  override close (): Promise<void>
  override close (callback: CloseCallback): void
  override close (callback?: CloseCallback): Promise<void> | void {
    this.closed = true
    if (callback) { queueMicrotask(() => callback(null)); return }
    return Promise.resolve()
  }

  override destroy (err?: Error | null): Promise<void>
  override destroy (callback: CloseCallback): void
  override destroy (err: Error | null, callback: CloseCallback): void
  override destroy (errOrCallback?: Error | null | CloseCallback, callback?: CloseCallback): Promise<void> | void {
    const cb = typeof errOrCallback === 'function' ? errOrCallback : callback
    this.destroyedWith = typeof errOrCallback === 'function' ? null : errOrCallback ?? null
    if (cb) { queueMicrotask(() => cb(null)); return }
    return Promise.resolve()
  }
}
