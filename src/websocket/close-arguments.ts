/**
 * The checks the WebSockets standard puts on `close(code, reason)`: a code must be 1000 or in
 * 3000-4999 (the others are for the protocol itself), a reason at most 123 UTF-8 bytes (a close
 * frame holds 125, two of which are the code).
 * @module
 */

import { describeValue } from '../validation/describe-value.js'

/** The close frame to send: no code (and no reason) means an empty close frame. */
export interface CloseArguments {
  code: number | undefined
  reason: string
}

/**
 * Checks `code` and `reason`; a reason without a code closes with 1000.
 * @throws DOMException `InvalidAccessError` for a bad code, `SyntaxError` for a long reason
 */
export function checkCloseArguments (where: string, code: unknown, reason: unknown): CloseArguments {
  let checkedCode: number | undefined
  if (code !== undefined) {
    const value = Number(code)
    if (!Number.isInteger(value) || (value !== 1000 && (value < 3000 || value > 4999))) {
      throw new DOMException(`${where}: the close code must be 1000 or from 3000 to 4999, got ${describeValue(code)}`, 'InvalidAccessError')
    }
    checkedCode = value
  }
  const text = reason === undefined ? '' : String(reason)
  const bytes = Buffer.byteLength(text)
  if (bytes > 123) throw new DOMException(`${where}: the close reason must be at most 123 bytes of UTF-8, got ${bytes}`, 'SyntaxError')
  if (checkedCode === undefined && reason !== undefined) checkedCode = 1000
  return { code: checkedCode, reason: text }
}
