/**
 * Trimming leading and trailing whitespace by walking the string from both ends. A regex such as
 * `/[\t ]+$/` retries from every position of a long inner run of blanks and becomes quadratic,
 * which lets one crafted header value stall the process; this walk is linear in the length.
 * @module
 */

function isHttpWhitespace (code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d
}

function isAsciiWhitespace (code: number): boolean {
  return isHttpWhitespace(code) || code === 0x0c
}

function trimWith (value: string, isBlank: (code: number) => boolean): string {
  let start = 0
  let end = value.length
  while (start < end && isBlank(value.charCodeAt(start))) start++
  while (end > start && isBlank(value.charCodeAt(end - 1))) end--
  return start === 0 && end === value.length ? value : value.slice(start, end)
}

/** `value` without leading and trailing HTTP whitespace (tab, LF, CR, space), as Fetch normalises header values. */
export function trimHttpWhitespace (value: string): string {
  return trimWith(value, isHttpWhitespace)
}

/** `value` without leading and trailing ASCII whitespace (HTTP whitespace plus form feed), as data: URLs are read. */
export function trimAsciiWhitespace (value: string): string {
  return trimWith(value, isAsciiWhitespace)
}
