/**
 * The static table of RFC 7541 Appendix A, and the lookups the encoder makes in it.
 * @module
 */

/** Entries 1..61 as [name, value] (index 0 is not an entry; section 2.3.3). */
export const STATIC_TABLE: ReadonlyArray<readonly [string, string]> = [
  [':authority', ''], [':method', 'GET'], [':method', 'POST'], [':path', '/'],
  [':path', '/index.html'], [':scheme', 'http'], [':scheme', 'https'], [':status', '200'],
  [':status', '204'], [':status', '206'], [':status', '304'], [':status', '400'],
  [':status', '404'], [':status', '500'], ['accept-charset', ''], ['accept-encoding', 'gzip, deflate'],
  ['accept-language', ''], ['accept-ranges', ''], ['accept', ''], ['access-control-allow-origin', ''],
  ['age', ''], ['allow', ''], ['authorization', ''], ['cache-control', ''],
  ['content-disposition', ''], ['content-encoding', ''], ['content-language', ''], ['content-length', ''],
  ['content-location', ''], ['content-range', ''], ['content-type', ''], ['cookie', ''],
  ['date', ''], ['etag', ''], ['expect', ''], ['expires', ''],
  ['from', ''], ['host', ''], ['if-match', ''], ['if-modified-since', ''],
  ['if-none-match', ''], ['if-range', ''], ['if-unmodified-since', ''], ['last-modified', ''],
  ['link', ''], ['location', ''], ['max-forwards', ''], ['proxy-authenticate', ''],
  ['proxy-authorization', ''], ['range', ''], ['referer', ''], ['refresh', ''],
  ['retry-after', ''], ['server', ''], ['set-cookie', ''], ['strict-transport-security', ''],
  ['transfer-encoding', ''], ['user-agent', ''], ['vary', ''], ['via', ''],
  ['www-authenticate', '']
]

/** Number of static entries; dynamic entries are indexed from `STATIC_LENGTH + 1` on (section 2.3.3). */
export const STATIC_LENGTH = STATIC_TABLE.length

/** A name of the static table: its first index, and the indexes of its entries with a value. */
export interface StaticName {
  /** Index of the first entry with this name. */
  index: number
  /** Index of each (name, value) entry, by value. */
  values: ReadonlyMap<string, number>
}

const byName = new Map<string, { index: number, values: Map<string, number> }>()
STATIC_TABLE.forEach(([name, value], i) => {
  let entry = byName.get(name)
  if (entry === undefined) byName.set(name, entry = { index: i + 1, values: new Map() })
  entry.values.set(value, i + 1)
})

/** The static table by name, for the encoder. */
export const STATIC_BY_NAME: ReadonlyMap<string, StaticName> = byName
