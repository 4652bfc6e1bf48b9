/**
 * Headers in undici's flat raw form, `[name, value, ...]` as Buffers: what the older handler shape
 * and undici 8's fetch (through `controller.rawHeaders`) read.
 * @module
 */

import type { IncomingHeaders } from '../contracts/dispatch-contract.js'

/** Converts headers to the flat raw form the older handler shape expects: `[name, value, ...]` as Buffers. */
export function toRawHeaders (headers: IncomingHeaders | null | undefined): Buffer[] {
  const raw: Buffer[] = []
  if (headers == null) return raw
  for (const name of Object.keys(headers)) {
    const value = headers[name]
    if (Array.isArray(value)) {
      for (const v of value) raw.push(Buffer.from(name, 'latin1'), Buffer.from(v, 'latin1'))
    } else if (value !== undefined) {
      raw.push(Buffer.from(name, 'latin1'), Buffer.from(String(value), 'latin1'))
    }
  }
  return raw
}
