/**
 * The `text/event-stream` interpretation of the HTML standard ("Server-sent events", parsing an
 * event stream), incremental over the bytes as they arrive: a leading BOM is dropped, lines end
 * at CRLF, LF or CR (a CR at the end of one chunk and an LF at the start of the next are one
 * line end), and each line is decoded as UTF-8 with replacement characters. Line ends are found
 * in the bytes, before decoding: CR and LF never occur inside a multi-byte UTF-8 sequence.
 *
 * Memory is bounded by `maxEventSize`, which counts what an event keeps as it arrives: the bytes
 * of its `data` lines (terminators included) and of the line not ended yet. An unfinished line
 * grows one buffer rather than a list of chunks, and `data` lines are joined in blocks as they
 * come, so neither a line sent one byte at a time nor millions of empty `data` lines cost more
 * than their bytes.
 * @module
 */

/** One event, ready to be dispatched. */
export interface StreamEvent {
  /** The event type: the `event` field, or `message`. */
  type: string
  /** The `data` lines, joined with LF. */
  data: string
  /** The last event ID when the event was dispatched. */
  lastEventId: string
}

/** What the parser reports. */
export interface EventStreamSink {
  /** A complete event (blank line after at least one `data` field). */
  onEvent (event: StreamEvent): void
  /** A `retry` field of ASCII digits: the new reconnection time in milliseconds. */
  onRetry (milliseconds: number): void
}

/** Thrown by {@link EventStreamParser.push} when one event (or one line) outgrows the limit. */
export class EventTooLargeError extends RangeError {
  constructor (limit: number) {
    super(`an event of the stream exceeds maxEventSize (${limit} bytes)`)
    this.name = 'EventTooLargeError'
  }
}

const LF = 0x0a
const CR = 0x0d
const BOM = [0xef, 0xbb, 0xbf]
const DIGITS = /^[0-9]+$/
const decoder = new TextDecoder('utf-8')

/** `data` lines kept apart before they are joined into one block (a flat string of their own). */
const LINES_PER_BLOCK = 256

/** Parses one connection's event stream; make a new one per connection. */
export class EventStreamParser {
  readonly #sink: EventStreamSink
  readonly #maxEventSize: number
  /** Bytes of a line not ended yet: the first `#partialLength` bytes of a buffer that grows by doubling. */
  #partial: Uint8Array | null = null
  #partialLength = 0
  /** The previous chunk ended with CR: an LF first in the next chunk ends no new line. */
  #afterCr = false
  /** Bytes seen before the BOM check was settled (fewer than three). */
  #head: number[] | null = []
  #eventType = ''
  /** The event's `data` lines, each block the LF-joined text of up to LINES_PER_BLOCK lines. */
  #dataBlocks: string[] = []
  /** The `data` lines since the last block. */
  #dataLines: string[] = []
  /** Bytes of the event's `data` lines as received, terminators included. */
  #dataBytes = 0
  /** The `id` field last seen; it becomes the last event ID when the next blank line comes. */
  #idBuffer: string
  /** Kept across connections by the caller: the ID the next events carry (and reconnections send). */
  lastEventId: string

  /**
   * @param lastEventId - the last event ID string of the EventSource (it survives reconnections)
   * @param maxEventSize - the most bytes one event's lines may hold together
   */
  constructor (sink: EventStreamSink, lastEventId: string, maxEventSize: number) {
    this.#sink = sink
    this.lastEventId = lastEventId
    this.#idBuffer = lastEventId
    this.#maxEventSize = maxEventSize
  }

  /** Feeds the next bytes of the stream. Throws {@link EventTooLargeError} past the limit. */
  push (chunk: Uint8Array): void {
    if (this.#head !== null) {
      chunk = this.#skipBom(chunk)
      if (chunk.length === 0) return
    }
    let start = 0
    if (this.#afterCr && chunk[0] === LF) start = 1
    this.#afterCr = false
    for (let i = start; i < chunk.length; i++) {
      const byte = chunk[i]
      if (byte !== LF && byte !== CR) continue
      this.#line(chunk.subarray(start, i))
      if (byte === CR) {
        if (i + 1 === chunk.length) this.#afterCr = true
        else if (chunk[i + 1] === LF) i++
      }
      start = i + 1
    }
    if (start < chunk.length) this.#keep(chunk.subarray(start))
  }

  #skipBom (chunk: Uint8Array): Uint8Array {
    const head = this.#head as number[]
    let used = 0
    while (used < chunk.length && head.length < BOM.length) head.push(chunk[used++] as number)
    if (head.length < BOM.length && head.every((b, i) => b === BOM[i])) return chunk.subarray(used)
    this.#head = null
    const rest = chunk.subarray(used)
    if (head.every((b, i) => b === BOM[i])) return rest
    // Not a BOM: the bytes held back are the stream's first.
    const whole = new Uint8Array(head.length + rest.length)
    whole.set(head)
    whole.set(rest, head.length)
    return whole
  }

  /** Keeps the start of a line (copied: the caller may reuse its buffer). */
  #keep (bytes: Uint8Array): void {
    const length = this.#partialLength + bytes.length
    this.#checkSize(length)
    let partial = this.#partial
    if (partial === null || partial.length < length) {
      const grown = new Uint8Array(Math.max(length, 2 * (partial?.length ?? 0), 256))
      if (partial !== null) grown.set(partial.subarray(0, this.#partialLength))
      partial = this.#partial = grown
    }
    partial.set(bytes, this.#partialLength)
    this.#partialLength = length
  }

  /** Throws once the event's data and a line of `lineBytes` would pass the limit. */
  #checkSize (lineBytes: number): void {
    if (this.#dataBytes + lineBytes > this.#maxEventSize) throw new EventTooLargeError(this.#maxEventSize)
  }

  #line (bytes: Uint8Array): void {
    let whole = bytes
    if (this.#partialLength > 0) {
      this.#keep(bytes)
      whole = this.#partial!.subarray(0, this.#partialLength)
      this.#partialLength = 0
      // A line that took a large buffer does not keep it for the next ones.
      if (this.#partial!.length > 64 * 1024) this.#partial = null
    }
    this.#checkSize(whole.length + 1)
    this.#field(decoder.decode(whole), whole.length + 1)
  }

  #field (line: string, lineBytes: number): void {
    if (line === '') {
      this.#dispatch()
      return
    }
    if (line.charCodeAt(0) === 0x3a /* ':' */) return
    const colon = line.indexOf(':')
    let name = line
    let value = ''
    if (colon !== -1) {
      name = line.slice(0, colon)
      value = line.charCodeAt(colon + 1) === 0x20 ? line.slice(colon + 2) : line.slice(colon + 1)
    }
    switch (name) {
      case 'event':
        this.#eventType = value
        break
      case 'data':
        this.#dataBytes += lineBytes
        this.#dataLines.push(value)
        if (this.#dataLines.length === LINES_PER_BLOCK) {
          this.#dataBlocks.push(this.#dataLines.join('\n'))
          this.#dataLines = []
        }
        break
      case 'id':
        if (!value.includes('\u0000')) this.#idBuffer = value
        break
      case 'retry':
        if (DIGITS.test(value)) this.#sink.onRetry(Number(value))
        break
      default:
        break
    }
  }

  #dispatch (): void {
    // The ID is taken at every blank line, even one that dispatches nothing.
    this.lastEventId = this.#idBuffer
    if (this.#dataBytes === 0) {
      this.#eventType = ''
      return
    }
    const blocks = this.#dataBlocks
    const lines = this.#dataLines
    // The common event, one data line, is its own text.
    const data = blocks.length === 0 && lines.length === 1 ? lines[0]! : [...blocks, ...lines].join('\n')
    const event: StreamEvent = { type: this.#eventType === '' ? 'message' : this.#eventType, data, lastEventId: this.lastEventId }
    this.#dataBlocks = []
    this.#dataLines = []
    this.#dataBytes = 0
    this.#eventType = ''
    this.#sink.onEvent(event)
  }
}
