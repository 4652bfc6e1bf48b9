/**
 * `for await` over a response body without the cost of Node's stream iterator where nothing
 * needs waiting for. A small response arrives with its head, so its body is usually whole in the
 * stream's buffer before the loop starts; Node's iterator still makes an async generator, a
 * 'readable' listener and an end-of-stream watcher (several listeners) per body. This iterator
 * reads what the buffer holds and reports the end it already saw. As soon as a step would have to
 * wait (or the stream errored, was destroyed or flows), it hands the rest of the iteration to
 * Node's own iterator, whose semantics (errors, premature close, destroy on `break`) then hold
 * unchanged.
 * @module
 */

import { Readable } from 'node:stream'
import { nextTick } from '../runtime/timers.js'

/** What the iterator needs of the body: a Readable that knows whether its end was pushed. */
export interface IterableBody extends Readable {
  /** The end of the body was pushed (it may still wait in the buffer). */
  readonly endPushed: boolean
}

/**
 * What Node's stream iterator destroys a stream with when a loop leaves it early: an error named
 * `AbortError` with code `ABORT_ERR` (the runtime does not export its class).
 */
class IterationAbortError extends Error {
  override readonly name = 'AbortError'
  readonly code = 'ABORT_ERR'
  constructor () {
    super('The operation was aborted')
  }
}

const nodeIterator = Readable.prototype[Symbol.asyncIterator] as (this: Readable) => AsyncIterator<Buffer>

function afterEnd (body: Readable, resolve: (result: IteratorResult<Buffer>) => void): void {
  // autoDestroy has destroyed it once 'end' was emitted; a body whose 'end' is still held back
  // (an 'end' listener unshifted data) is destroyed here, as Node's iterator would.
  if (!body.destroyed) body.destroy()
  resolve({ value: undefined, done: true })
}

/** The iterator a body's `[Symbol.asyncIterator]()` returns. */
export class BodyIterator implements AsyncIterableIterator<Buffer> {
  readonly #body: IterableBody
  /** Node's iterator, once a step had to wait; it takes every later step. */
  #node: AsyncIterator<Buffer> | null = null
  /** `next()` was called: as with a generator, `return()` and `throw()` before it do nothing to the body. */
  #started = false
  /** The end was reported, or the iteration was left early. */
  #finished = false

  constructor (body: IterableBody) {
    this.#body = body
  }

  next (): Promise<IteratorResult<Buffer>> {
    if (this.#node !== null) return this.#node.next()
    if (this.#finished) return Promise.resolve({ value: undefined, done: true })
    this.#started = true
    const body = this.#body
    if (!body.destroyed && body.errored === null && body.readableFlowing !== true) {
      if (body.readableLength > 0) {
        const chunk = body.read() as Buffer | null
        if (chunk !== null) return Promise.resolve({ value: chunk, done: false })
      } else if (body.endPushed) {
        // Emptying the buffer queued 'end' (this read also queues it for an empty body). Like
        // Node's iterator, the loop ends once 'end' was emitted and the body is destroyed: a
        // tick queued after it sees both.
        body.read()
        this.#finished = true
        return new Promise((resolve) => { nextTick(() => { afterEnd(body, resolve) }) })
      }
    }
    this.#node = nodeIterator.call(body)
    return this.#node.next()
  }

  /** Leaving the loop early (`break`, `return`): the body is destroyed, as with Node's iterator. */
  return (): Promise<IteratorResult<Buffer>> {
    if (this.#node !== null) return this.#node.return!()
    if (this.#started && !this.#finished) {
      this.#finished = true
      this.#body.destroy(new IterationAbortError())
    }
    return Promise.resolve({ value: undefined, done: true })
  }

  /** An error thrown into the iteration destroys the body and rejects with it. */
  throw (err?: unknown): Promise<IteratorResult<Buffer>> {
    if (this.#node !== null) return this.#node.throw!(err)
    if (this.#started && !this.#finished) {
      this.#finished = true
      this.#body.destroy(new IterationAbortError())
    }
    return Promise.reject(err)
  }

  [Symbol.asyncIterator] (): this {
    return this
  }
}

// Inheriting %AsyncIteratorPrototype%, as Node's own stream iterator does, gives this one what the
// runtime adds there (`Symbol.asyncDispose` for `await using`), which Readable's type promises.
const ASYNC_ITERATOR_PROTOTYPE = Object.getPrototypeOf(Object.getPrototypeOf(async function * () {}.prototype)) as object
Object.setPrototypeOf(BodyIterator.prototype, ASYNC_ITERATOR_PROTOTYPE)
