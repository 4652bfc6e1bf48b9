/**
 * The limits a connection applies to each response, against servers that would otherwise hold a
 * request or fill memory: informational (1xx) heads before the final one, and body bytes.
 * @module
 */

import { HeadersOverflowError, ResponseExceededMaxSizeError } from '../errors.js'

/** A `maxResponseSize` that limits nothing. */
export const NO_SIZE_LIMIT = -1

/** What the error messages name the request by. */
interface RequestLabel {
  readonly origin: string
  readonly method: string
  readonly path: string
}

/** Counts, for the response being read, what `maxInformationalResponses` and `maxResponseSize` limit. */
export class ResponseLimits {
  readonly #maxInformational: number
  readonly #maxBody: number
  #informational = 0
  #bodyBytes = 0

  /** @param maxBody - `maxResponseSize`; -1 counts nothing */
  constructor (maxInformational: number, maxBody: number) {
    this.#maxInformational = maxInformational
    this.#maxBody = maxBody
  }

  /** An informational head arrived; throws {@link HeadersOverflowError} past the limit. */
  informational (req: RequestLabel): void {
    const max = this.#maxInformational
    if (++this.#informational > max) {
      throw new HeadersOverflowError(`more than ${max} informational (1xx) responses from ${req.origin} for ${req.method} ${req.path} before the final one (maxInformationalResponses)`)
    }
  }

  /** The final head arrived: counting starts again for its body and the next response. */
  finalHead (): void {
    this.#informational = 0
    this.#bodyBytes = 0
  }

  /** Body bytes arrived; throws {@link ResponseExceededMaxSizeError} past the limit. */
  body (req: RequestLabel, length: number): void {
    const max = this.#maxBody
    if (max === NO_SIZE_LIMIT) return
    this.#bodyBytes += length
    if (this.#bodyBytes > max) {
      throw new ResponseExceededMaxSizeError(`response body from ${req.origin} for ${req.method} ${req.path} exceeds maxResponseSize (${max} bytes)`)
    }
  }
}
