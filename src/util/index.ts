/**
 * The `util` namespace of the public entry, as undici's: helpers for raw header lists.
 * @module
 */

export { parseHeaders, headerNameToString } from './raw-headers.js'
export type { RawHeaderEntry, ParsedHeaders } from './raw-headers.js'
