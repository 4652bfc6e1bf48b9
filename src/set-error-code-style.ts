/**
 * The public switch between conduit's error codes and undici's (src/error-code-style.ts holds the
 * setting; this checks what a caller passes).
 * @module
 */

import { InvalidArgumentError } from './errors.js'
import { applyErrorCodeStyle, errorCodeStyle, isErrorCodeStyle } from './error-code-style.js'
import type { ErrorCodeStyle } from './error-code-style.js'
import { describeValue } from './validation/describe-value.js'

export { errorCodeStyle }
export type { ErrorCodeStyle }

/**
 * Sets the code style of errors created from now on, for the whole process: `'undici'` gives
 * them undici's codes (`UND_ERR_HEADERS_TIMEOUT`), makes `errors.UndiciError` an alias of
 * `LibraryError` and lets undici's own error classes recognise them with `instanceof`;
 * `'conduit'` (the default) gives `LIB_` codes. Errors already made keep their code, so call it
 * at startup, before any request. The `CONDUIT_ERROR_CODES` environment variable does the same
 * without a code change.
 * @example
 * import { setErrorCodeStyle } from 'conduit'
 * setErrorCodeStyle('undici')
 */
export function setErrorCodeStyle (style: ErrorCodeStyle): void {
  if (!isErrorCodeStyle(style)) {
    throw new InvalidArgumentError(`setErrorCodeStyle(): style must be 'conduit' or 'undici', got ${describeValue(style)}`)
  }
  applyErrorCodeStyle(style)
}
