/**
 * How error messages describe a refused header value: by the offending character and where it
 * is, never by the value itself. Any header (`authorization`, `cookie`, `x-api-key`...) may
 * carry a credential, and error messages end up in logs.
 * @module
 */

/**
 * `character U+000D at index 14 of 20` for the first character of `text` that `invalid`
 * matches (`invalid` must be neither global nor sticky), or a note that none matched.
 */
export function describeBadHeaderValue (text: string, invalid: RegExp): string {
  const match = invalid.exec(text)
  const where = match === null
    ? `${text.length} characters`
    : `character U+${match[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} at index ${match.index} of ${text.length}`
  return `${where}; the value is not shown, as it may be a credential`
}
