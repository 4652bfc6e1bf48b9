/**
 * What an HTTP/2 stream's header blocks look like to the rest of conduit: a decoded header
 * list in the dispatch contract's shape.
 * @module
 */

import type { IncomingHeaders } from '../contracts/dispatch-contract.js'
import type { HeaderList } from './framing/header-codec.js'

/**
 * Copies a decoded header list into conduit's shape: lower-case names (HPACK already refused
 * others), no pseudo-headers. A repeated field's values are joined with `, ` (RFC 9110 section
 * 5.3), `cookie` crumbs with `; ` (RFC 9113 section 8.2.3), and `set-cookie`, which cannot be
 * joined, is always an array, as HTTP/2 responses have reached undici callers until now.
 */
export function toIncomingHeaders (headers: HeaderList): IncomingHeaders {
  const out: IncomingHeaders = {}
  for (let i = 0; i < headers.length; i++) {
    const [name, value] = headers[i]!
    if (name.charCodeAt(0) === 58 /* ':' */) continue
    const prev = out[name]
    if (name === 'set-cookie') {
      if (prev === undefined) out[name] = [value]
      else (prev as string[]).push(value)
    } else if (prev === undefined) {
      out[name] = value
    } else {
      out[name] = `${prev as string}${name === 'cookie' ? '; ' : ', '}${value}`
    }
  }
  return out
}

/** The `:status` of a response head the session classified (it holds a valid one). */
export function statusOf (headers: HeaderList): number {
  for (let i = 0; i < headers.length; i++) if (headers[i]![0] === ':status') return Number(headers[i]![1])
  return 0
}
