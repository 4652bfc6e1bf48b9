/**
 * A recorded body replayed at the recorded pace: each chunk is delivered after its recorded
 * delay divided by the replay speed, so a client's progress handling and timeouts meet the
 * gaps the real server left. The delays follow the caller's clock (the global `setTimeout`,
 * looked up when each one starts, as a mock reply's delay does), so a test's fake clock can
 * move them instead of waiting.
 * @module
 */

/** The chunks of a body, each after its delay; destroying it cancels the pending delay. */
export class TimedBody implements AsyncIterableIterator<Buffer> {
  readonly #chunks: readonly Buffer[]
  readonly #delaysMs: readonly number[]
  #next = 0
  #timer: ReturnType<typeof setTimeout> | null = null
  #wake: ((result: IteratorResult<Buffer>) => void) | null = null

  /** @param delaysMs - milliseconds to wait before each chunk, already scaled by the replay speed */
  constructor (chunks: readonly Buffer[], delaysMs: readonly number[]) {
    this.#chunks = chunks
    this.#delaysMs = delaysMs
  }

  [Symbol.asyncIterator] (): this {
    return this
  }

  next (): Promise<IteratorResult<Buffer>> {
    const i = this.#next
    if (i >= this.#chunks.length) return Promise.resolve({ done: true, value: undefined })
    this.#next++
    const chunk = this.#chunks[i]!
    const delay = this.#delaysMs[i] ?? 0
    if (delay <= 0) return Promise.resolve({ done: false, value: chunk })
    return new Promise((resolve) => {
      this.#wake = resolve
      this.#timer = setTimeout(() => {
        this.#timer = null
        this.#wake = null
        resolve({ done: false, value: chunk })
      }, delay)
    })
  }

  /** Stops early (the reader went away): the pending delay is cancelled, nothing more is delivered. */
  return (): Promise<IteratorResult<Buffer>> {
    this.destroy()
    return Promise.resolve({ done: true, value: undefined })
  }

  /** Cancels the pending delay; the reply was aborted or failed. */
  destroy (): void {
    this.#next = this.#chunks.length
    if (this.#timer !== null) {
      clearTimeout(this.#timer)
      this.#timer = null
    }
    const wake = this.#wake
    this.#wake = null
    wake?.({ done: true, value: undefined })
  }
}
