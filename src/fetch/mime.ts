/**
 * MIME type parsing and serialization as the MIME Sniffing Standard describes it, reduced to
 * what fetch needs: a body's type for `blob()`, and the boundary / charset parameters.
 * @module
 */

import { trimHttpWhitespace } from './whitespace.js'

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const QUOTED_VALUE = /^[\t\u0020-\u007e\u0080-\u00ff]*$/

/** A parsed MIME type: lower-case essence parts and parameters (names lower-case). */
export interface MimeType {
  type: string
  subtype: string
  parameters: Map<string, string>
}

/** Parses `input` (for example a Content-Type value); null when it is not a valid MIME type. */
export function parseMimeType (input: string): MimeType | null {
  const text = trimHttpWhitespace(input)
  const slash = text.indexOf('/')
  if (slash <= 0) return null
  const type = text.slice(0, slash)
  if (!TOKEN.test(type)) return null
  let semi = text.indexOf(';', slash)
  if (semi === -1) semi = text.length
  const subtype = trimHttpWhitespace(text.slice(slash + 1, semi))
  if (subtype === '' || !TOKEN.test(subtype)) return null
  const result: MimeType = { type: type.toLowerCase(), subtype: subtype.toLowerCase(), parameters: new Map() }
  let pos = semi + 1
  while (pos < text.length) {
    while (pos < text.length && /[\t\n\r ]/.test(text[pos]!)) pos++
    let end = pos
    while (end < text.length && text[end] !== ';' && text[end] !== '=') end++
    const name = text.slice(pos, end).toLowerCase()
    pos = end
    if (pos >= text.length) break
    if (text[pos] === ';') { pos++; continue }
    pos++
    let value: string
    if (text[pos] === '"') {
      value = ''
      pos++
      while (pos < text.length && text[pos] !== '"') {
        if (text[pos] === '\\' && pos + 1 < text.length) pos++
        value += text[pos]
        pos++
      }
      while (pos < text.length && text[pos] !== ';') pos++
      pos++
    } else {
      end = text.indexOf(';', pos)
      if (end === -1) end = text.length
      value = trimHttpWhitespace(text.slice(pos, end))
      pos = end + 1
      if (value === '') continue
    }
    if (name !== '' && TOKEN.test(name) && QUOTED_VALUE.test(value) && !result.parameters.has(name)) {
      result.parameters.set(name, value)
    }
  }
  return result
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
