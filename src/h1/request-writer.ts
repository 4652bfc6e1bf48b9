/**
 * The request-writing side of an HTTP/1.1 connection: puts each request head on the socket, then
 * its body (at once when it is in memory, streamed otherwise, or held back until the server's
 * `100 Continue`), and reports when the connection is free to write the next one.
 * @module
 */

import type { Duplex } from 'node:stream'
import { BodyWriter } from '../connection/body-writer.js'
import type { BodyWriterOwner } from '../connection/body-writer.js'
import { BODY_BYTES, BODY_NONE, bodyBytes } from '../connection/request-body.js'
import { writeRequestHead } from './request-head.js'
import type { ClientRequest } from '../connection/client-request.js'
import { publishSendHeaders } from '../observability/request-events.js'
import { holdWritesForTurn } from './write-batch.js'

/** What the request writer reports to its connection. */
export interface RequestWriterOwner {
  /** A body that was streamed or held back has been written; the next request may follow. */
  onRequestWritten (): void
  /** Streaming the body of `req` failed (its source errored, or its length was wrong). */
  onRequestBodyFailed (req: ClientRequest, err: Error): void
}

/** Writes the requests of one connection, one body at a time. */
export class H1RequestWriter implements BodyWriterOwner {
  readonly #socket: Duplex
  readonly #owner: RequestWriterOwner
  #body: BodyWriter | null = null
  #writing: ClientRequest | null = null
  #awaitingContinue: ClientRequest | null = null

  /** @param owner - told when the connection may write again, or when a body failed */
  constructor (socket: Duplex, owner: RequestWriterOwner) {
    this.#socket = socket
    this.#owner = owner
  }

  /** True while a body is being streamed or waits for `100 Continue`: nothing else may be written. */
  get busy (): boolean {
    return this.#writing !== null || this.#awaitingContinue !== null
  }

  /** The request whose body is being streamed, or null. */
  get writing (): ClientRequest | null {
    return this.#writing
  }

  /**
   * Writes the head of `req`, and its body unless that streams or waits for `100 Continue`.
   * Returns true when `req` is the first request held back in this turn's write batch.
   */
  write (req: ClientRequest): boolean {
    const socket = this.#socket
    const held = holdWritesForTurn(socket)
    const head = writeRequestHead(req)
    publishSendHeaders(req, head, socket)
    const kind = req.bodyKind
    if (kind === BODY_NONE) {
      socket.write(head, 'latin1')
      req.headSent()
      this.#bodySent(req)
    } else if (kind === BODY_BYTES && !req.expectContinue) {
      const bytes = bodyBytes(req.body)
      socket.cork()
      socket.write(head, 'latin1')
      req.headSent()
      socket.write(bytes)
      socket.uncork()
      req.bodyChunkSent(bytes)
      this.#bodySent(req)
    } else {
      socket.write(head, 'latin1')
      req.headSent()
      if (req.expectContinue) this.#awaitingContinue = req
      else this.#startBody(req)
    }
    return held
  }

  /** The server sent `100 Continue` for `req`: its held-back body goes now. */
  continue (req: ClientRequest): void {
    if (this.#awaitingContinue !== req) return
    this.#awaitingContinue = null
    this.#startBody(req)
  }

  /**
   * The server answered `req` without asking for its held-back body, which is then never sent.
   * Returns true in that case: the server cannot tell where the next request starts.
   */
  skipHeldBody (req: ClientRequest): boolean {
    if (this.#awaitingContinue !== req) return false
    this.#awaitingContinue = null
    return true
  }

  /**
   * Stops streaming the body of `req`, whose response completed first (and was delivered): the
   * body is destroyed only after the caller had a turn to pass that response on, since a proxy's
   * body is its own incoming request, whose socket goes with it. Returns true when it was still
   * being written: the connection's framing is then broken.
   */
  stopBodyOf (req: ClientRequest): boolean {
    if (this.#writing !== req) return false
    this.#body?.abort(true)
    this.#body = null
    this.#writing = null
    return true
  }

  /** Stops any body being streamed (the connection is closing). */
  abort (): void {
    this.#body?.abort()
    this.#body = null
    this.#writing = null
  }

  #startBody (req: ClientRequest): void {
    if (req.bodyKind === BODY_BYTES) {
      const bytes = bodyBytes(req.body)
      this.#socket.write(bytes)
      req.bodyChunkSent(bytes)
      this.#bodySent(req)
      this.#owner.onRequestWritten()
      return
    }
    this.#writing = req
    this.#body = new BodyWriter(this.#socket, req.body, req.bodyKind, req.bodyLength, this)
    this.#body.start()
  }

  #bodySent (req: ClientRequest): void {
    req.requestSent()
  }

  /** From the body writer: a chunk of the streamed body goes out now. */
  onBodyChunk (chunk: Uint8Array): void {
    this.#writing?.bodyChunkSent(chunk)
  }

  /** From the body writer: the streamed body is out. */
  onBodyWritten (): void {
    const req = this.#writing
    this.#body = null
    this.#writing = null
    if (req !== null) this.#bodySent(req)
    this.#owner.onRequestWritten()
  }

  /** From the body writer: the streamed body failed. */
  onBodyError (err: Error): void {
    const req = this.#writing
    this.#body = null
    this.#writing = null
    if (req !== null) this.#owner.onRequestBodyFailed(req, err)
  }
}
