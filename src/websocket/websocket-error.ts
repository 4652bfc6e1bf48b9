/**
 * `WebSocketError`: the DOMException a `WebSocketStream` rejects and errors its streams with,
 * carrying the close code and reason (WebSocketStream explainer, as undici implements it).
 * @module
 */

import { checkCloseArguments } from './close-arguments.js'

/** Close information: `{ closeCode, reason }`. */
export interface WebSocketCloseInfo {
  /** The close code. */
  closeCode?: number | undefined
  /** The close reason. */
  reason?: string | undefined
}

/** A WebSocketStream failure or close, as a DOMException named `WebSocketError`. */
export class WebSocketError extends DOMException {
  readonly #closeCode: number | null
  readonly #reason: string

  /**
   * @throws DOMException `InvalidAccessError` / `SyntaxError` for a code or reason `close()` would refuse
   */
  constructor (message = '', init: WebSocketCloseInfo = {}) {
    super(String(message), 'WebSocketError')
    const checked = checkCloseArguments('new WebSocketError()', init.closeCode, init.reason)
    this.#closeCode = checked.code ?? null
    this.#reason = checked.reason
  }

  /** The close code, or null. */
  get closeCode (): number | null { return this.#closeCode }
  /** The close reason. */
  get reason (): string { return this.#reason }

  /** An error for a code the peer or the protocol chose (1002, 1006, ...), which `close()` would refuse. */
  static fromConnection (message: string, closeCode: number | null, reason: string): WebSocketError {
    const error = new WebSocketError(message)
    Object.defineProperty(error, 'closeCode', { value: closeCode })
    Object.defineProperty(error, 'reason', { value: reason })
    return error
  }
}
