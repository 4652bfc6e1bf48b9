/**
 * One field block being received: the HEADERS frame that opened it and the CONTINUATION frames
 * that follow (RFC 9113 section 6.10), held as the fragments they arrived in until the block
 * ends. Its bytes and frame count are capped as each fragment arrives, so a block that never
 * ends (CVE-2024-27316's family) is cut off before it costs more than the caps.
 * @module
 */

import { connectionError } from './protocol-error.js'
import { ErrorCode } from './protocol.js'

/** The fragments of a field block, checked against the session's caps as they come. */
export class HeaderBlock {
  readonly streamId: number
  /** The opening HEADERS frame had END_STREAM. */
  readonly endStream: boolean
  readonly fragments: Buffer[] = []
  #bytes = 0
  #continuations = 0
  readonly #maxBytes: number
  readonly #maxContinuations: number

  constructor (streamId: number, endStream: boolean, maxBytes: number, maxContinuations: number) {
    this.streamId = streamId
    this.endStream = endStream
    this.#maxBytes = maxBytes
    this.#maxContinuations = maxContinuations
  }

  /** Adds the HEADERS frame's fragment, or a CONTINUATION's when `continuation`; throws past a cap. */
  add (fragment: Buffer, continuation: boolean): void {
    if (continuation && ++this.#continuations > this.#maxContinuations) {
      throw connectionError(ErrorCode.ENHANCE_YOUR_CALM, `field block of stream ${this.streamId} took more than ${this.#maxContinuations} CONTINUATION frames (limit maxContinuationFrames)`, 'maxContinuationFrames')
    }
    this.#bytes += fragment.length
    if (this.#bytes > this.#maxBytes) {
      throw connectionError(ErrorCode.ENHANCE_YOUR_CALM, `field block of stream ${this.streamId} is over ${this.#maxBytes} bytes before decoding (limit maxHeaderBlockBytes)`, 'maxHeaderBlockBytes')
    }
    if (fragment.length > 0) this.fragments.push(fragment)
  }
}
