/**
 * MIME type parsing and serialization as the MIME Sniffing Standard describes them ("parse a
 * MIME type", "serialize a MIME type"): a body's type for `blob()`, the boundary and charset
 * parameters, and the public `parseMIMEType` / `serializeAMimeType`.
 * @module
 */

import { trimHttpWhitespace } from './whitespace.js'

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const QUOTED_STRING_TOKENS = /^[\t\u0020-\u007e\u0080-\u00ff]*$/

/** A parsed MIME type: lower-case essence parts and parameters (names lower-case). */
export interface MimeType {
  type: string
  subtype: string
  parameters: Map<string, string>
}

function isHttpWhitespace (char: string | undefined): boolean {
  return char === ' ' || char === '\t' || char === '\n' || char === '\r'
}

/** Index of the first `stop` at or after `from`, or the end of `text`. */
function indexOrEnd (text: string, stop: string, from: number): number {
  const at = text.indexOf(stop, from)
  return at === -1 ? text.length : at
}

function trimTrailingHttpWhitespace (text: string): string {
  let end = text.length
  while (end > 0 && isHttpWhitespace(text[end - 1])) end--
  return end === text.length ? text : text.slice(0, end)
}

/**
 * Fetch's "collect an HTTP quoted string" with the extract-value flag, starting at the opening
 * quote at `start`: the unescaped value and the position after the closing quote.
 */
function collectQuotedString (text: string, start: number): { value: string, end: number } {
  let value = ''
  let pos = start + 1
  while (pos < text.length) {
    const char = text[pos]!
    pos++
    if (char === '"') break
    if (char !== '\\') {
      value += char
    } else if (pos >= text.length) {
      // A backslash that ends the input stands for itself.
      value += '\\'
    } else {
      value += text[pos]
      pos++
    }
  }
  return { value, end: pos }
}

/** Parses `input` (for example a Content-Type value); null when it is not a valid MIME type. */
export function parseMimeType (input: string): MimeType | null {
  const text = trimHttpWhitespace(input)
  const slash = text.indexOf('/')
  if (slash <= 0) return null
  const type = text.slice(0, slash)
  if (!TOKEN.test(type)) return null
  let pos = indexOrEnd(text, ';', slash + 1)
  // Only trailing whitespace is removed from the subtype: `text/ html` is not a MIME type.
  const subtype = trimTrailingHttpWhitespace(text.slice(slash + 1, pos))
  if (!TOKEN.test(subtype)) return null
  const result: MimeType = { type: type.toLowerCase(), subtype: subtype.toLowerCase(), parameters: new Map() }
  while (pos < text.length) {
    pos++
    while (isHttpWhitespace(text[pos])) pos++
    let end = pos
    while (end < text.length && text[end] !== ';' && text[end] !== '=') end++
    const name = text.slice(pos, end).toLowerCase()
    pos = end
    if (pos < text.length) {
      if (text[pos] === ';') continue
      pos++
    }
    if (pos >= text.length) break
    let value: string
    if (text[pos] === '"') {
      const quoted = collectQuotedString(text, pos)
      value = quoted.value
      pos = indexOrEnd(text, ';', quoted.end)
    } else {
      end = indexOrEnd(text, ';', pos)
      value = trimTrailingHttpWhitespace(text.slice(pos, end))
      pos = end
      if (value === '') continue
    }
    // Parameters that are not well-formed are dropped, as the standard says; the first of a name wins.
    if (TOKEN.test(name) && QUOTED_STRING_TOKENS.test(value) && !result.parameters.has(name)) {
      result.parameters.set(name, value)
    }
  }
  return result
}

/** Whether `name` may be a MIME type parameter name (an HTTP token). */
export function isMimeToken (name: string): boolean {
  return TOKEN.test(name)
}

/** Whether `value` may be a MIME type parameter value (HTTP quoted-string code points). */
export function isMimeParameterValue (value: string): boolean {
  return QUOTED_STRING_TOKENS.test(value)
}

/** Serializes a parsed MIME type: `type/subtype;name=value`, quoting values that are not tokens. */
export function serializeMimeType (mime: MimeType): string {
  let out = `${mime.type}/${mime.subtype}`
  for (const [name, value] of mime.parameters) {
    out += `;${name}=${TOKEN.test(value) ? value : `"${value.replace(/(["\\])/g, '\\$1')}"`}`
  }
  return out
}

/** The essence (`type/subtype`) of a Content-Type value, or '' when it does not parse. */
export function mimeEssence (contentType: string | null): string {
  if (contentType === null) return ''
  const mime = parseMimeType(contentType)
  return mime === null ? '' : `${mime.type}/${mime.subtype}`
}
