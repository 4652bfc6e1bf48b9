/**
 * {@link RecordingHandler}: passes a real response through to the caller and, when it ends
 * well, hands a copy to the recorder.
 * @module
 */

import { DecoratorHandler } from '../../src/handler.js'
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

/** Forwards every hook and records the response once it ended. */
export class RecordingHandler extends DecoratorHandler {
  readonly #recorder: SnapshotRecorder
  readonly #opts: DispatchOptions
  #statusCode = 0
  #headers: IncomingHeaders = {}
  #chunks: Buffer[] = []

  constructor (opts: DispatchOptions, handler: DispatchHandler, recorder: SnapshotRecorder) {
    super(handler)
    this.#opts = opts
    this.#recorder = recorder
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    // An informational (1xx) head is followed by the real one; only the final response is kept.
    this.#statusCode = statusCode
    this.#headers = headers
    this.#chunks = []
    super.onResponseStart(controller, statusCode, headers, statusMessage)
  }

  override onResponseData (controller: DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk)
    super.onResponseData(controller, chunk)
  }

  override onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    try {
      this.#recorder.record(this.#opts, {
        statusCode: this.#statusCode,
        headers: this.#headers,
        body: this.#chunks,
        trailers: trailers ?? {},
        keepChunks: isStreamedResponse(this.#headers)
      })
    } catch (err) {
      super.onResponseError(controller, err as Error)
      return
    }
    super.onResponseEnd(controller, trailers)
  }
}
