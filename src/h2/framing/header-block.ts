/**
 * One field block being received: the HEADERS frame that opened it and the CONTINUATION frames
 * that follow (RFC 9113 section 6.10). Each fragment is decoded as it arrives, so the header list
 * limit is enforced while the block comes in and no fragment is held; the block's bytes and frame
 * count are capped as well, so a block that never ends (CVE-2024-27316's family) is cut off
 * before it costs more than the caps.
 * @module
 */

import type { LibraryError } from '../../errors.js'
import { H2ProtocolError, connectionError } from './protocol-error.js'
import { ErrorCode } from './protocol.js'
import { isStreamScoped } from './header-codec.js'
import type { HeaderBlockCodec, HeaderList, StreamScopedCodecError } from './header-codec.js'

/** The limits one block is held to. */
export interface HeaderBlockLimits {
  /** Bytes of encoded block, CONTINUATIONs included. */
  maxBytes: number
  /** CONTINUATION frames after the HEADERS frame. */
  maxContinuations: number
  /** Bytes of decoded header list (RFC 9113 section 6.5.2). */
  maxListSize: number
}

/** The fragments of a field block, checked against the session's caps and decoded as they come. */
export class HeaderBlock {
  readonly streamId: number
  /** The opening HEADERS frame had END_STREAM. */
  readonly endStream: boolean
  /** The codec's stream-scoped refusal of this block (its stream is reset), or null. */
  failure: StreamScopedCodecError | null = null
  #bytes = 0
  #continuations = 0
  readonly #codec: HeaderBlockCodec
  readonly #limits: HeaderBlockLimits

  constructor (streamId: number, endStream: boolean, codec: HeaderBlockCodec, limits: HeaderBlockLimits) {
    this.streamId = streamId
    this.endStream = endStream
    this.#codec = codec
    this.#limits = limits
  }

  /**
   * Adds and decodes the HEADERS frame's fragment, or a CONTINUATION's when `continuation`;
   * returns the header list once `endHeaders`, null before or when the block failed for its
   * stream ({@link failure}). Throws a connection error past a cap or when the block does not decode.
   */
  add (fragment: Buffer, continuation: boolean, endHeaders: boolean): HeaderList | null {
    const limits = this.#limits
    if (continuation && ++this.#continuations > limits.maxContinuations) {
      throw connectionError(ErrorCode.ENHANCE_YOUR_CALM, `field block of stream ${this.streamId} took more than ${limits.maxContinuations} CONTINUATION frames (limit maxContinuationFrames)`, 'maxContinuationFrames')
    }
    this.#bytes += fragment.length
    if (this.#bytes > limits.maxBytes) {
      throw connectionError(ErrorCode.ENHANCE_YOUR_CALM, `field block of stream ${this.streamId} is over ${limits.maxBytes} bytes before decoding (limit maxHeaderBlockBytes)`, 'maxHeaderBlockBytes')
    }
    try {
      const headers = this.#codec.decodeFragment(fragment, endHeaders, limits.maxListSize)
      return this.failure === null ? headers : null
    } catch (error) {
      if (error instanceof H2ProtocolError) throw error
      if (isStreamScoped(error)) {
        this.failure ??= error
        return null
      }
      throw connectionError(ErrorCode.COMPRESSION_ERROR, `field block of stream ${this.streamId} does not decode: ${(error as LibraryError).message} (RFC 9113 section 4.3)`)
    }
  }
}
