/**
 * The dispatch handler behind one `fetch()` call: it follows redirects, decodes the body,
 * checks integrity, honours the abort signal at every stage, and settles the promise once
 * the response head arrives.
 * @module
 */

import { markFetchTiming } from './resource-timing.js'
import { monotonicNow } from '../runtime/timers.js'
import { resolveObjectURL } from 'node:buffer'
import type { Dispatcher } from '../dispatcher/dispatcher.js'
import type { DispatchController, DispatchHandler, IncomingHeaders } from '../contracts/dispatch-contract.js'
import { maxResponseSizeOf } from '../connection/connection-config.js'
import { ResponseExceededMaxSizeError } from '../errors.js'
import { BAD_PORTS, NULL_BODY_STATUSES } from './constants.js'
import { REDIRECT_STATUSES, redirectLocation } from '../redirect/rules.js'
import type { ResponseType } from './constants.js'
import { parseDataUrl } from './data-url.js'
import { BodyDecoder } from '../content-coding/body-decoder.js'
import { dispatchOptionsFor } from './dispatch-options.js'
import { fetchDebug } from './fetch-debug.js'
import { IncomingBody } from './incoming-body.js'
import type { BodyFlow } from './incoming-body.js'
import { matchesIntegrity } from './integrity.js'
import { applyRedirect } from './redirect.js'
import type { RequestState } from './request-state.js'
import { createResponse } from './response.js'
import { watchUnclaimed } from './unclaimed-bodies.js'
import type { Response } from './response.js'
import { DualShapeHandler } from '../handlers/dual-shape-handler.js'
import { chunkByteLength, downloadTotal, TransferProgress } from '../api/transfer-progress.js'
import type { TransferProgressOptions } from '../api/transfer-progress.js'

/**
 * The response type (Fetch Standard, main fetch): the request's origin is the first URL's, as
 * there is no client; a response from another origin is `cors`, or `opaque` in `no-cors` mode.
 */
function responseTainting (state: RequestState): ResponseType {
  const urlList = state.urlList
  // Without a redirect the request never left its origin (and origins are costly to serialize).
  if (urlList.length === 1) return 'basic'
  const first = urlList[0]!
  const last = urlList[urlList.length - 1]!
  if (first.origin === last.origin || last.protocol === 'data:') return 'basic'
  return state.mode === 'no-cors' ? 'opaque' : 'cors'
}

/** The rejection fetch uses for every network failure: the real error is the `cause`. */
export function networkError (cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause })
}

function single (value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value
}

/** Runs one fetch over `dispatcher`, hop by hop, and settles `resolve`/`reject` exactly once. */
export class FetchHandler extends DualShapeHandler implements DispatchHandler, BodyFlow {
  // TypeScript-private members, not #private ones: see IncomingBody.
  private readonly state: RequestState
  private readonly dispatcher: Dispatcher
  private resolve: ((response: Response) => void) | null
  private reject: ((reason: unknown) => void) | null
  private controller: DispatchController | null = null
  private body: IncomingBody | null = null
  private decoder: BodyDecoder | null = null
  /** The transport's `maxResponseSize` (from the `onRequestStart` context), applied to the decoded body; -1: none. */
  private maxDecodedSize = -1
  private following = false
  private done = false
  private networkPaused = false
  private bodyPaused = false
  private decoderPaused = false
  private onAbort: (() => void) | null = null
  /** Upload and download progress, one each for the whole fetch (every hop); null unless asked for. */
  private readonly upload: TransferProgress | null = null
  private readonly download: TransferProgress | null = null
  // For the resource timing entry (see resource-timing.ts): when the fetch and its last hop began,
  // the final status, and the body's bytes as received and as decoded.
  private readonly startedAt: number = monotonicNow()
  private lastHopAt = this.startedAt
  private status = 0
  private encodedBytes = 0
  private decodedBytes = 0

  /** @param progress - the `onUploadProgress` / `onDownloadProgress` members of the init, already checked */
  constructor (state: RequestState, dispatcher: Dispatcher, resolve: (response: Response) => void, reject: (reason: unknown) => void, progress: TransferProgressOptions | null = null) {
    super()
    this.state = state
    this.dispatcher = dispatcher
    this.resolve = resolve
    this.reject = reject
    if (progress !== null) {
      if (progress.onUploadProgress != null) this.upload = new TransferProgress(progress.onUploadProgress, state.body === null ? 0 : state.body.length)
      if (progress.onDownloadProgress != null) this.download = new TransferProgress(progress.onDownloadProgress)
    }
  }

  /** Starts the first hop (or fails at once when the signal is already aborted). */
  start (): void {
    const signal = this.state.signal
    if (signal !== null) {
      if (signal.aborted) {
        // The body will never be sent: a stream the caller handed over is cancelled so its source stops.
        const source = this.state.body?.source
        if (source?.kind === 'stream' && !source.data.locked) source.data.cancel(signal.reason).catch(() => {})
        this.fail(signal.reason, false)
        return
      }
      this.onAbort = () => this.abort(signal.reason)
      signal.addEventListener('abort', this.onAbort, { once: true })
    }
    this.hop()
  }

  private url (): URL {
    return this.state.urlList[this.state.urlList.length - 1]!
  }

  private hop (): void {
    const url = this.url()
    const protocol = url.protocol
    if (protocol === 'data:') {
      this.serveData(url)
      return
    }
    if (protocol === 'blob:') {
      this.serveBlob(url)
      return
    }
    if (protocol !== 'http:' && protocol !== 'https:') {
      this.fail(new Error(`fetching ${protocol} URLs is not supported`), true)
      return
    }
    const port = url.port
    if (port !== '' && BAD_PORTS.has(Number(port))) {
      this.fail(new Error(`bad port: ${port} is blocked by the Fetch Standard`), true)
      return
    }
    this.controller = null
    this.following = false
    if (this.state.urlList.length > 1) this.lastHopAt = monotonicNow()
    const opts = dispatchOptionsFor(this.state)
    try {
      this.dispatcher.dispatch(opts, this)
    } catch (err) {
      this.fail(err, true)
    }
  }

  private serveData (url: URL): void {
    const data = parseDataUrl(url)
    if (data === null) {
      this.fail(new Error(`invalid data: URL ${url.href.slice(0, 64)}`), true)
      return
    }
    this.serveLocal(url, { 'content-type': data.mimeType }, data.body)
  }

  /**
   * A `blob:` URL (`URL.createObjectURL`) answers a GET with the Blob it names (Fetch Standard,
   * scheme fetch); any other method, or a URL that names no Blob, is a network error.
   */
  private serveBlob (url: URL): void {
    const blob = this.state.method === 'GET' ? resolveObjectURL(url.href) : undefined
    if (blob === undefined) {
      this.fail(new Error(this.state.method === 'GET' ? `blob: URL ${url.href} names no Blob` : `a blob: URL only answers GET, not ${this.state.method}`), true)
      return
    }
    blob.arrayBuffer().then((data) => {
      if (this.done) return
      this.serveLocal(url, { 'content-type': blob.type, 'content-length': String(blob.size) }, Buffer.from(data))
    }, (err: unknown) => this.fail(err, true))
  }

  /** Answers from memory (a data: or blob: URL); a HEAD gets the head only. */
  private serveLocal (url: URL, headers: IncomingHeaders, data: Buffer): void {
    fetchDebug.local(this.state.method, url, 200)
    let body: IncomingBody | null = null
    if (this.state.method !== 'HEAD') {
      body = new IncomingBody(null)
      body.push(data)
      body.end()
    }
    this.deliver(200, 'OK', headers, body)
    // The whole response exists already: nothing is left for the signal to abort.
    this.finish()
  }

  /** Settles the promise with `response` unless an integrity check must see the whole body first. */
  private deliver (status: number, statusText: string, headers: IncomingHeaders, body: IncomingBody | null): void {
    if (this.state.integrity !== '' && body !== null) {
      body.collect().then((chunks) => {
        const bytes = Buffer.concat(chunks)
        if (!matchesIntegrity(bytes, this.state.integrity)) {
          this.fail(new Error(`integrity mismatch for ${this.url().href}: expected ${this.state.integrity}`), true)
          return
        }
        const verified = new IncomingBody(null)
        verified.push(bytes)
        verified.end()
        this.settle(status, statusText, headers, verified)
      }, (err: unknown) => this.fail(err, true))
      return
    }
    this.settle(status, statusText, headers, body)
  }

  private settle (status: number, statusText: string, headers: IncomingHeaders, body: IncomingBody | null): void {
    const resolve = this.resolve
    if (resolve === null) return
    this.resolve = null
    this.reject = null
    const urlList = this.state.urlList
    const type = responseTainting(this.state)
    if (type === 'opaque') {
      // Fetch Standard, opaque filtered response: nothing of a no-cors cross-origin response is exposed.
      body?.cancel(new DOMException('The response is opaque', 'AbortError'))
      resolve(createResponse({ type, status: 0, statusText: '', urlList: [], rawHeaders: null, headers: null, guard: 'immutable' }, null))
      return
    }
    // The state's URL list is this fetch's own copy and no hop follows a settled response, so the response can keep it.
    const response = createResponse({
      type, status, statusText, urlList, rawHeaders: headers, headers: null, guard: 'immutable'
    }, body === null ? null : { kind: 'incoming', data: body })
    resolve(response)
    if (body !== null && !body.settled) watchUnclaimed(response, body)
  }

  /** Rejects (before the response) or errors the body (after); `wrap` turns `err` into fetch's network error. */
  private fail (err: unknown, wrap: boolean): void {
    this.finish()
    const reject = this.reject
    if (reject !== null) {
      this.resolve = null
      this.reject = null
      reject(wrap ? networkError(err) : err)
    }
    this.decoder?.destroy()
    // Fetch reports a body cut short by the network as "terminated", keeping the real error as cause.
    this.body?.error(wrap ? new TypeError('terminated', { cause: err }) : err)
  }

  private abort (reason: unknown): void {
    const controller = this.controller
    this.fail(reason, false)
    if (controller !== null && !controller.aborted) controller.abort(reason instanceof Error ? reason : new DOMException(String(reason), 'AbortError'))
  }

  private finish (): void {
    if (this.done) return
    this.done = true
    if (this.onAbort !== null) {
      this.state.signal?.removeEventListener('abort', this.onAbort)
      this.onAbort = null
    }
  }

  /** The body buffered enough with nobody reading: the connection pauses. */
  pauseFlow (): void {
    this.bodyPaused = true
    this.updateFlow()
  }

  /** The body's reader wants more. */
  resumeFlow (): void {
    this.bodyPaused = false
    this.updateFlow()
  }

  /** The body was cancelled: the fetch is aborted with `reason`. */
  abortFlow (reason: Error): void {
    this.abort(reason)
  }

  private updateFlow (): void {
    const controller = this.controller
    if (controller === null) return
    const wanted = this.bodyPaused || this.decoderPaused
    if (wanted && !this.networkPaused) {
      this.networkPaused = true
      controller.pause()
    } else if (!wanted && this.networkPaused) {
      this.networkPaused = false
      controller.resume()
    }
  }

  onRequestStart (controller: DispatchController, context?: unknown): void {
    this.controller = controller
    this.maxDecodedSize = maxResponseSizeOf(context)
    if (this.done) controller.abort(new DOMException('This operation was aborted', 'AbortError'))
  }

  onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    this.controller = controller
    if (this.done || statusCode < 200) return
    const state = this.state
    // In 'error' mode any redirect status is a network error, with or without a usable Location.
    if (REDIRECT_STATUSES.has(statusCode) && state.redirect === 'error') {
      this.failDispatch(controller, new Error(`unexpected redirect: status ${statusCode} (redirect: 'error')`))
      return
    }
    if (REDIRECT_STATUSES.has(statusCode) && state.redirect !== 'manual') {
      let location: URL | null
      try {
        location = redirectLocation(headers, this.url())
      } catch (err) {
        this.failDispatch(controller, err)
        return
      }
      if (location !== null) {
        const refused = applyRedirect(state, statusCode, location, headers)
        if (refused !== null) {
          this.failDispatch(controller, refused)
          return
        }
        this.following = true
        return
      }
    }
    this.status = statusCode
    const hasBody = state.method !== 'HEAD' && !NULL_BODY_STATUSES.has(statusCode)
    this.download?.start(downloadTotal(hasBody, headers['content-length']))
    let body: IncomingBody | null = null
    if (hasBody) {
      body = new IncomingBody(this)
      this.body = body
      const encoding = single(headers['content-encoding'])
      if (encoding !== undefined) {
        try {
          let decoded = 0
          const max = this.maxDecodedSize
          this.decoder = BodyDecoder.create(encoding, {
            push: (chunk) => {
              // The transport limits the bytes received; a compression bomb grows past them here.
              if (decoded > max && max !== -1) return
              decoded += chunk.length
              this.decodedBytes = decoded
              if (max !== -1 && decoded > max) {
                this.failDispatch(controller, new ResponseExceededMaxSizeError(`decoded response body of ${state.method} ${this.url().href} exceeds maxResponseSize (${max} bytes)`))
                return
              }
              body!.push(chunk)
            },
            end: () => body!.end(),
            // A corrupt encoding ends the download too: the rest of the body is useless.
            error: (err) => this.failDispatch(controller, err, false)
          }, { who: 'fetch' })
        } catch (err) {
          this.failDispatch(controller, err)
          return
        }
      }
    }
    this.deliver(statusCode, statusMessage ?? '', headers, body)
  }

  private failDispatch (controller: DispatchController, err: unknown, wrap = true): void {
    this.fail(err, wrap)
    if (!controller.aborted) controller.abort(err instanceof Error ? err : new Error(String(err)))
  }

  onBodySent (chunk: Uint8Array | string): void {
    const upload = this.upload
    if (upload === null || this.done) return
    this.reportProgress(() => upload.add(chunkByteLength(chunk)))
  }

  onRequestSent (): void {
    const upload = this.upload
    if (upload === null || this.done) return
    this.reportProgress(() => upload.finish())
  }

  /** Runs a progress report; a callback that throws fails the fetch with what it threw. */
  private reportProgress (report: () => void): boolean {
    try {
      report()
      return true
    } catch (err) {
      const controller = this.controller
      if (controller !== null) this.failDispatch(controller, err, false)
      else this.fail(err, false)
      return false
    }
  }

  onResponseData (_controller: DispatchController, chunk: Buffer): void {
    if (this.done || this.following) return
    const download = this.download
    if (download !== null && !this.reportProgress(() => download.add(chunk.length))) return
    this.encodedBytes += chunk.length
    const decoder = this.decoder
    if (decoder !== null) {
      if (!decoder.write(chunk) && !this.decoderPaused) {
        this.decoderPaused = true
        this.updateFlow()
        decoder.onDrain(() => {
          this.decoderPaused = false
          this.updateFlow()
        })
      }
      return
    }
    this.body?.push(chunk)
  }

  onResponseEnd (): void {
    if (this.done) return
    if (this.following) {
      this.hop()
      return
    }
    const download = this.download
    if (download !== null && !this.reportProgress(() => download.finish())) return
    this.finish()
    if (this.decoder !== null) this.decoder.end()
    else this.body?.end()
    this.markTiming()
  }

  /** Leaves the fetch's entry on the performance timeline, as the runtime's own fetch does. */
  private markTiming (): void {
    markFetchTiming({
      url: this.state.urlList[0]!.href,
      startedAt: this.startedAt,
      lastHopAt: this.lastHopAt,
      timings: this.controller?.timings ?? null,
      status: this.status,
      encodedBodySize: this.encodedBytes,
      decodedBodySize: this.decoder !== null ? this.decodedBytes : this.encodedBytes
    })
  }

  onResponseError (_controller: DispatchController, error: Error): void {
    this.fail(error, true)
  }
}
