/**
 * The field rules of RFC 9113 section 8.2.1 a decoder checks on each decoded field: names are
 * lowercase visible ASCII without a colon (but a pseudo-header's leading one), values hold no NUL,
 * CR or LF. A field breaking them makes its message malformed, not the HPACK state.
 * @module
 */

/** 1 for the octets a field name may hold: 0x21-0x40 and 0x5b-0x7e, the colon apart. */
const NAME_OCTET = new Uint8Array(256)
for (let c = 0x21; c <= 0x7e; c++) if ((c < 0x41 || c > 0x5a) && c !== 0x3a) NAME_OCTET[c] = 1

/** Why the name in `bytes[start, end)` is not a valid HTTP/2 field name, or null when it is. */
export function nameProblem (bytes: Uint8Array, start: number, end: number): string | null {
  if (start === end) return 'an empty field name'
  const from = bytes[start] === 0x3a && end - start > 1 ? start + 1 : start
  for (let i = from; i < end; i++) {
    if (NAME_OCTET[bytes[i]!] === 0) return `a field name with octet 0x${bytes[i]!.toString(16).padStart(2, '0')} at ${i - start}`
  }
  return null
}

/** Why the name string `name` is not a valid HTTP/2 field name, or null when it is. */
export function nameStringProblem (name: string): string | null {
  if (name.length === 0) return 'an empty field name'
  const from = name.charCodeAt(0) === 0x3a && name.length > 1 ? 1 : 0
  for (let i = from; i < name.length; i++) {
    const c = name.charCodeAt(i)
    if (c > 0xff || NAME_OCTET[c] === 0) return `a field name with octet 0x${c.toString(16).padStart(2, '0')} at ${i}`
  }
  return null
}

/** Whether the value in `bytes[start, end)` holds NUL, CR or LF (the offset is all a message names). */
export function valueProblem (bytes: Uint8Array, start: number, end: number): string | null {
  for (let i = start; i < end; i++) {
    const c = bytes[i]!
    if (c === 0 || c === 0x0a || c === 0x0d) return `a field value with octet 0x${c.toString(16).padStart(2, '0')} at ${i - start}`
  }
  return null
}
