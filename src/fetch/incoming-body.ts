/**
 * A response body arriving from a dispatcher. Chunks are kept as the Buffers the transport
 * delivered: `text()`/`json()`/`arrayBuffer()` collect them directly, and a WHATWG
 * ReadableStream is built only when someone asks for `response.body`.
 * @module
 */

import { BODY_HIGH_WATER_MARK } from './constants.js'

/** How the body pauses, resumes or cancels the dispatch feeding it. */
export interface BodyFlow {
  pauseFlow (): void
  resumeFlow (): void
  abortFlow (reason: Error): void
}

type Mode = 'buffer' | 'collect' | 'stream'

/**
 * A chunk as a body stream hands it out: a plain Uint8Array over memory of its own. A byte
 * stream takes over (detaches) the buffer of what is enqueued, and the transport's chunks are
 * views into the socket's reads, which other chunks and the parser still use; so the chunk is
 * copied once here, where it leaves for the reader, as the Fetch Standard's byte streams need.
 * Bodies read whole (`text()`, `json()`, `arrayBuffer()`...) never pass through here.
 */
export function ownedChunk (chunk: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(chunk)
}

/** Response body chunks in flight, with one consumer: a collector or a ReadableStream. */
export class IncomingBody {
  // TypeScript-private fields, not #private ones: until a constructor is optimized by the top
  // tier, each #field is defined and written through V8's generic keyed ICs, on every fetch.
  private flow: BodyFlow | null
  private chunks: Buffer[] = []
  private size = 0
  private mode: Mode = 'buffer'
  private done = false
  private failure: unknown = undefined
  private failed = false
  private paused = false
  private collector: { resolve: (chunks: Buffer[]) => void, reject: (err: unknown) => void } | null = null
  private controller: ReadableByteStreamController | null = null

  constructor (flow: BodyFlow | null) {
    this.flow = flow
  }

  /** True once the body ended or failed. */
  get settled (): boolean {
    return this.done || this.failed
  }

  /** True while the body is still arriving and no consumer (collector or stream) has claimed it. */
  get unclaimed (): boolean {
    return this.mode === 'buffer' && !this.done && !this.failed
  }

  private pause (): void {
    if (!this.paused && this.flow !== null) {
      this.paused = true
      this.flow.pauseFlow()
    }
  }

  private resume (): void {
    if (this.paused) {
      this.paused = false
      this.flow?.resumeFlow()
    }
  }

  /** A chunk arrived. */
  push (chunk: Buffer): void {
    if (this.done || this.failed || chunk.length === 0) return
    if (this.mode === 'stream') {
      this.controller!.enqueue(ownedChunk(chunk))
      if ((this.controller!.desiredSize ?? 0) <= 0) this.pause()
      return
    }
    this.chunks.push(chunk)
    this.size += chunk.length
    if (this.mode === 'buffer' && this.size >= BODY_HIGH_WATER_MARK) this.pause()
  }

  /** The body is complete. */
  end (): void {
    if (this.done || this.failed) return
    this.done = true
    this.flow = null
    if (this.mode === 'stream') {
      this.controller!.close()
    } else if (this.collector !== null) {
      const { resolve } = this.collector
      this.collector = null
      resolve(this.take())
    }
  }

  /** The body failed (network error, abort, decoding error). */
  error (err: unknown): void {
    if (this.done || this.failed) return
    this.failed = true
    this.failure = err
    this.flow = null
    this.chunks = []
    if (this.mode === 'stream') {
      this.controller!.error(err)
    } else if (this.collector !== null) {
      const { reject } = this.collector
      this.collector = null
      reject(err)
    }
  }

  private take (): Buffer[] {
    const chunks = this.chunks
    this.chunks = []
    this.size = 0
    return chunks
  }

  /**
   * Every chunk at once when the body has already ended (a small response usually has by the
   * time it is read), making this the body's single consumer; null otherwise (use {@link collect}).
   */
  takeComplete (): Buffer[] | null {
    if (!this.done || this.failed) return null
    this.mode = 'collect'
    return this.take()
  }

  /** Resolves with every chunk once the body ends; the single consumer of this body. */
  collect (): Promise<Buffer[]> {
    this.mode = 'collect'
    if (this.failed) return Promise.reject(this.failure)
    if (this.done) return Promise.resolve(this.take())
    return new Promise((resolve, reject) => {
      this.collector = { resolve, reject }
      this.resume()
    })
  }

  /** Cancels the body: the dispatch is aborted with `reason` and buffered chunks are dropped. */
  cancel (reason: Error): void {
    if (this.done || this.failed) return
    const flow = this.flow
    this.failed = true
    this.failure = reason
    this.flow = null
    this.chunks = []
    flow?.abortFlow(reason)
  }

  /**
   * Cancels the body only if no consumer ever claimed it. A body being collected or streamed
   * may outlive its Response object (`fetch(url).then((r) => r.text())`), so it is left alone.
   * The reason is made only when needed: most bodies were claimed, and an exception is costly.
   */
  cancelUnclaimed (reason: () => Error): void {
    if (this.unclaimed) this.cancel(reason())
  }

  /** Hands the body over to a new byte stream (built once; the caller keeps it), readable with a BYOB reader too. */
  stream (): ReadableStream<Uint8Array> {
    this.mode = 'stream'
    return new ReadableStream({
      type: 'bytes',
      start: (controller: ReadableByteStreamController) => {
        this.controller = controller
        for (const chunk of this.take()) controller.enqueue(ownedChunk(chunk))
        if (this.failed) controller.error(this.failure)
        else if (this.done) controller.close()
      },
      pull: () => { this.resume() },
      cancel: (reason: unknown) => {
        this.cancel(reason instanceof Error ? reason : new DOMException(String(reason ?? 'The body was cancelled'), 'AbortError'))
      }
    }, { highWaterMark: BODY_HIGH_WATER_MARK }) as ReadableStream<Uint8Array>
  }
}
