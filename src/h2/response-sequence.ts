/**
 * Puts a response's body chunks and its end in the order the dispatch contract requires (head,
 * then data, then end) while the handler may pause: chunks that arrive while it is paused wait
 * here unread (so their flow-control window stays shut), and nothing reaches a paused handler
 * and nothing is dropped. A CONNECT stream handed over as a tunnel takes what waits.
 * @module
 */

/** Where the sequence delivers, in order: the exchange, which forwards to the request. */
export interface SequenceSink {
  /** The handler paused the response: chunks wait until it resumes. */
  readonly paused: boolean
  /** The request ended (failed, or the end was delivered): nothing more is delivered. */
  readonly done: boolean
  /** Delivers one body chunk to the handler. */
  deliverData (chunk: Buffer): void
  /** Delivers the end of the response to the handler. */
  deliverEnd (): void
}

/** The body chunks and end of one response that are not delivered yet. */
export class ResponseSequence {
  readonly #sink: SequenceSink
  /** Chunks received and not delivered, oldest first from `#next` (NO_CHUNKS until one waits). */
  #queue: Buffer[] = NO_CHUNKS
  #next = 0
  #headDelivered = false
  /** The server ended the stream (END_STREAM); the end is delivered after the last chunk. */
  #ended = false
  #flushing = false

  constructor (sink: SequenceSink) {
    this.#sink = sink
  }

  /** The head reached the handler. */
  get headDelivered (): boolean { return this.#headDelivered }

  /** The server ended the stream: the response is complete once the chunks held here are delivered. */
  get ended (): boolean { return this.#ended }

  /** The head was delivered: what arrived before it follows now. */
  onHeadDelivered (): void {
    this.#headDelivered = true
    this.flush()
  }

  /** A body chunk arrived: delivered now when nothing is waiting before it, else queued. */
  onData (chunk: Buffer): void {
    if (this.#headDelivered && !this.#flushing && this.#next === this.#queue.length && !this.#sink.paused) {
      this.#sink.deliverData(chunk)
      return
    }
    if (this.#queue === NO_CHUNKS) this.#queue = []
    this.#queue.push(chunk)
  }

  /** The server ended the stream. */
  onEnd (): void {
    this.#ended = true
    this.flush()
  }

  /** Delivers what waits, in order, until the handler pauses or the request ends. */
  flush (): void {
    // A handler that resumes from inside onResponseData re-enters here: the outer loop goes on.
    if (!this.#headDelivered || this.#flushing) return
    const sink = this.#sink
    this.#flushing = true
    try {
      while (this.#next < this.#queue.length && !sink.paused && !sink.done) {
        const chunk = this.#queue[this.#next]!
        this.#queue[this.#next++] = EMPTY
        sink.deliverData(chunk)
      }
    } finally {
      this.#flushing = false
    }
    if (this.#next === this.#queue.length) {
      this.#queue = NO_CHUNKS
      this.#next = 0
      if (this.#ended && !sink.done) sink.deliverEnd()
    }
  }

  /** Takes the chunks not delivered (a CONNECT stream handed over as a tunnel gets them back). */
  takeQueued (): Buffer[] {
    const rest = this.#queue.slice(this.#next)
    this.#queue = NO_CHUNKS
    this.#next = 0
    return rest
  }
}

const EMPTY = Buffer.alloc(0)
/**
 * The queue of every sequence with nothing waiting, never written to: most responses deliver each
 * chunk at once, so an open stream need not hold an array of its own.
 */
const NO_CHUNKS: Buffer[] = []
