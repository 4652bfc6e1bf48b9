/**
 * {@link RecordingHandler}: passes a real response through to the caller and, when it ends
 * well, hands a copy to the recorder.
 * @module
 */

import { DecoratorHandler, runtimeTimers } from '../../src/handler.js'
import type { DispatchController, DispatchHandler, DispatchOptions, IncomingHeaders } from '../../src/handler.js'
import type { SnapshotRecorder } from './snapshot-recorder.js'

const STREAMING_TYPES = ['text/event-stream', 'application/x-ndjson', 'application/ndjson', 'application/jsonl', 'application/jsonlines', 'application/json-seq']

/**
 * True for responses whose chunk boundaries mean something to the reader: event streams,
 * line-delimited JSON, and chunked bodies without a length.
 */
export function isStreamedResponse (headers: IncomingHeaders): boolean {
  const type = headers['content-type']
  const contentType = (Array.isArray(type) ? type[0] : type)?.toLowerCase() ?? ''
  if (STREAMING_TYPES.some((t) => contentType.startsWith(t))) return true
  const encoding = headers['transfer-encoding']
  const chunked = (Array.isArray(encoding) ? encoding.join(',') : encoding ?? '').toLowerCase().includes('chunked')
  return chunked && headers['content-length'] === undefined
}

/** Milliseconds between two readings of the monotonic clock, to the millisecond (finer is noise in a diff). */
function elapsed (from: number, to: number): number {
  return Math.max(0, Math.round(to - from))
}

/**
 * Forwards every hook and records the response once it ended, with its timing: how long the
 * head took from the dispatch, and the gap before each chunk of the body.
 */
export class RecordingHandler extends DecoratorHandler {
  readonly #recorder: SnapshotRecorder
  readonly #opts: DispatchOptions
  readonly #replaces: string | undefined
  readonly #sentAt = runtimeTimers.monotonicNow()
  #statusCode = 0
  #headers: IncomingHeaders = {}
  #chunks: Buffer[] = []
  #delayMs = 0
  #chunkDelaysMs: number[] = []
  #last = 0

  /** @param replaces - the key of a stale entry this recording takes the place of */
  constructor (opts: DispatchOptions, handler: DispatchHandler, recorder: SnapshotRecorder, replaces?: string) {
    super(handler)
    this.#opts = opts
    this.#recorder = recorder
    this.#replaces = replaces
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    // An informational (1xx) head is followed by the real one; only the final response is kept.
    this.#statusCode = statusCode
    this.#headers = headers
    this.#chunks = []
    this.#chunkDelaysMs = []
    this.#last = runtimeTimers.monotonicNow()
    this.#delayMs = elapsed(this.#sentAt, this.#last)
    super.onResponseStart(controller, statusCode, headers, statusMessage)
  }

  override onResponseData (controller: DispatchController, chunk: Buffer): void {
    const now = runtimeTimers.monotonicNow()
    this.#chunks.push(chunk)
    this.#chunkDelaysMs.push(elapsed(this.#last, now))
    this.#last = now
    super.onResponseData(controller, chunk)
  }

  override onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    const streamed = isStreamedResponse(this.#headers)
    // A body kept whole is replayed as one chunk, after the whole transfer's time.
    const chunkDelaysMs = streamed && this.#chunks.length > 1 ? this.#chunkDelaysMs : this.#chunks.length === 0 ? [] : [this.#chunkDelaysMs.reduce((a, b) => a + b, 0)]
    try {
      this.#recorder.record(this.#opts, {
        statusCode: this.#statusCode,
        headers: this.#headers,
        body: this.#chunks,
        trailers: trailers ?? {},
        keepChunks: streamed,
        delayMs: this.#delayMs,
        chunkDelaysMs
      }, this.#replaces)
    } catch (err) {
      super.onResponseError(controller, err as Error)
      return
    }
    super.onResponseEnd(controller, trailers)
  }
}
