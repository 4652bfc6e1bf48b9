/**
 * The store's side of its writer thread: starts it (when the store opens, and again on the next
 * write after a failure), posts writes to it, keeps the process alive while writes are on their
 * way (so a process that exits right after a response was cached still stores it), and says
 * when the thread is gone.
 * @module
 */

import { Worker } from 'node:worker_threads'
import type { FromWriter, ToWriter, WriterThreadData } from './sqlite-writer-worker.js'
import type { WriteOperation } from './sqlite-schema.js'

/** What the store hears from its writer thread. */
export interface WriterEvents {
  /** Every write up to `seq` is committed (`error` null) or was not (`error` says why). */
  done: (seq: number, error: string | null) => void
  /** The thread is gone (it could not open the database, or it died): no write still pending will be committed. */
  lost: (error: string) => void
}

/** A thread that failed this many times in a row, without committing anything between, is not started again. */
const MAX_CONSECUTIVE_LOSSES = 3

/** The longest `close()` waits for the thread to commit what it was given; past it, the thread goes on alone. */
export const CLOSE_WAIT_MS = 1000

/** One writer thread at a time for one store. */
export class WriterThread {
  readonly #data: WriterThreadData
  readonly #events: WriterEvents
  #worker: Worker | null = null
  #losses = 0
  #closing = false

  constructor (data: Omit<WriterThreadData, 'closed'>, events: WriterEvents) {
    this.#data = { ...data, closed: new Int32Array(new SharedArrayBuffer(4)) }
    this.#events = events
  }

  /** False once the thread failed too often in a row: the store then writes on its own connection. */
  get usable (): boolean {
    return this.#losses < MAX_CONSECUTIVE_LOSSES && !this.#closing
  }

  /**
   * Starts the thread now, unless one runs. The store does so when it opens: starting a thread
   * costs its caller milliseconds, better spent once there than on a write in the middle of traffic.
   */
  start (): void {
    if (this.#worker === null && this.usable) this.#start().unref()
  }

  /** Sends writes to the thread, starting it when none runs. */
  post (writes: Array<WriteOperation & { seq: number }>): void {
    const worker = this.#worker ?? this.#start()
    worker.ref()
    worker.postMessage({ type: 'writes', writes } satisfies ToWriter)
  }

  /** Nothing is pending: the thread no longer keeps the process alive. */
  idle (): void {
    this.#worker?.unref()
  }

  /**
   * Commits what was posted, then ends the thread. Waits up to {@link CLOSE_WAIT_MS} for that, so
   * a store opened on the same file right after sees every write; past it the process stays
   * alive until the thread is done.
   */
  close (): void {
    this.#closing = true
    const worker = this.#worker
    if (worker === null) return
    worker.ref()
    worker.postMessage({ type: 'close' } satisfies ToWriter)
    Atomics.wait(this.#data.closed, 0, 0, CLOSE_WAIT_MS)
  }

  #start (): Worker {
    const worker = new Worker(new URL('./sqlite-writer-worker.js', import.meta.url), { workerData: this.#data })
    this.#worker = worker
    let lost = false
    const lose = (error: string): void => {
      if (lost) return
      lost = true
      if (this.#worker === worker) this.#worker = null
      this.#losses++
      this.#events.lost(error)
    }
    worker.on('message', (message: FromWriter) => {
      if (message.type === 'unusable') {
        lose(message.error)
        void worker.terminate()
        return
      }
      if (message.error === null) this.#losses = 0
      this.#events.done(message.seq, message.error)
    })
    worker.on('error', (err) => lose(err.message))
    worker.on('exit', (code) => {
      if (!(this.#closing && code === 0)) lose(`the writer thread exited with code ${code}`)
      else if (this.#worker === worker) this.#worker = null
    })
    return worker
  }
}
