/**
 * Plays a response the cache produced (a hit, a revalidated entry, a 504) into a dispatch
 * handler, with the same guarantees as the transport: start at most once, exactly one of
 * end/error, pause/resume honoured, abort (controller or signal) ends it with an error.
 * @module
 */

import { Readable } from 'node:stream'
import type { GetResult } from '../../src/contracts/cache-store.js'
import type { DispatchHandler, DispatchOptions, IncomingHeaders } from '../../src/handler.js'
import { SimpleController } from '../../src/handler.js'
import { RequestAbortedError } from '../../src/errors.js'
import { ForwardingController } from '../../src/handlers/forwarding-controller.js'
import { log } from './log.js'

/** A response to play back. */
export interface CachedResponse {
  statusCode: number
  statusMessage: string
  headers: IncomingHeaders
  body: GetResult['body']
}

/** How to play it back. */
export interface ServeOptions {
  /** The controller the handler already has (after a revalidation); otherwise onRequestStart is called with a new one. */
  controller?: ForwardingController | undefined
  /** Context for onRequestStart. */
  context?: unknown
  /** The request's abort signal, if any. */
  signal?: DispatchOptions['signal']
  /** HEAD responses carry no body. */
  method: string
}

function toError (reason: unknown): Error {
  return reason instanceof Error ? reason : new RequestAbortedError()
}

/** Plays `response` into `handler`. Never throws: handler exceptions end the response with an error. */
export function serveCached (handler: DispatchHandler, response: CachedResponse, options: ServeOptions): void {
  const outer = options.controller ?? new ForwardingController()
  const signal = options.signal ?? undefined
  let finished = false
  let source: Readable | null = null
  let chunks: Buffer[] | null = null
  let index = 0
  let pumping = false

  const onSignal = (): void => outer.abort(toError(signal?.reason))
  const cleanup = (): void => { signal?.removeEventListener('abort', onSignal) }
  const fail = (err: Error): void => {
    if (finished) return
    finished = true
    cleanup()
    source?.destroy()
    try {
      handler.onResponseError?.(outer, err)
    } catch (thrown) {
      log('handler threw in onResponseError: %s', (thrown as Error).message)
    }
  }
  const end = (): void => {
    if (finished) return
    finished = true
    cleanup()
    try {
      handler.onResponseEnd?.(outer, {})
    } catch (thrown) {
      log('handler threw in onResponseEnd: %s', (thrown as Error).message)
    }
  }
  const deliver = (chunk: Buffer): void => {
    if (finished) return
    try {
      handler.onResponseData?.(outer, chunk)
    } catch (err) {
      fail(err as Error)
    }
  }
  const pump = (): void => {
    if (pumping || chunks === null) return
    pumping = true
    while (!finished && !inner.paused && index < chunks.length) deliver(chunks[index++])
    pumping = false
    if (!finished && !inner.paused && index >= chunks.length) end()
  }
  const inner = new SimpleController({
    abort: (reason) => fail(reason),
    pause: () => { source?.pause() },
    resume: () => { if (source !== null) source.resume(); else pump() }
  })

  outer.target = inner
  if (options.controller === undefined) {
    try {
      handler.onRequestStart?.(outer, options.context)
    } catch (err) {
      fail(err as Error)
    }
  }
  if (finished) return
  if (signal?.aborted === true) {
    fail(toError(signal.reason))
    return
  }
  signal?.addEventListener('abort', onSignal, { once: true })
  try {
    handler.onResponseStart?.(outer, response.statusCode, response.headers, response.statusMessage)
  } catch (err) {
    fail(err as Error)
  }
  if (finished) return

  const body = options.method === 'HEAD' ? null : response.body
  if (body == null) {
    chunks = []
  } else if (Buffer.isBuffer(body)) {
    chunks = body.length === 0 ? [] : [body]
  } else if (typeof body === 'string') {
    chunks = body.length === 0 ? [] : [Buffer.from(body)]
  } else if (body instanceof Readable || Symbol.asyncIterator in (body as object)) {
    const stream = body instanceof Readable ? body : Readable.from(body as AsyncIterable<Buffer>)
    source = stream
    stream.on('data', (chunk: Buffer | string) => deliver(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)))
    stream.on('end', end)
    stream.on('error', (err: Error) => fail(err))
    if (inner.paused) stream.pause()
    return
  } else {
    chunks = Array.from(body as Iterable<Buffer | string>, (chunk) => Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk))
  }
  pump()
}
