/**
 * The undici that differential tests and benchmarks compare conduit with. Everything that
 * compares with undici imports it from here and nowhere else, so the reference changes in one
 * place. By default it is undici 7 on every runtime: the differential suite was written against
 * it and runs unchanged on Node 20 to 26. `CONDUIT_UNDICI_REFERENCE=8` selects the current major
 * where the runtime can load it (Node 22 and later); a few differential tests (HTTP/2 hostile
 * servers, MIME and cookie parsing, some hostile HTTP/1.1 answers) still meet undici 8's changed
 * behaviour there. docs/undici-differences.md lists what differs between the two majors.
 */

import type * as Undici from 'undici'

/** Major version of the running Node. */
export const NODE_MAJOR = Number(process.versions.node.split('.')[0])

/** Major version of the undici used as the reference on this runtime. */
export const UNDICI_MAJOR: 7 | 8 = NODE_MAJOR >= 22 && process.env.CONDUIT_UNDICI_REFERENCE === '8' ? 8 : 7

// Both majors export the same names; the reference is typed as the current one.
const reference = (UNDICI_MAJOR === 8 ? await import('undici') : await import('undici7')) as unknown as typeof Undici

/** The reference undici module. */
export const undici: typeof Undici = reference

/** The reference's version, as its package.json says (`8.13.1`). */
export const UNDICI_VERSION: string = (await import(UNDICI_MAJOR === 8 ? 'undici/package.json' : 'undici7/package.json', { with: { type: 'json' } })).default.version

export const { Agent, Client, MockAgent, Response, cacheStores, fetch, interceptors } = reference

/** The reference's types (the current major's). */
export type * as UndiciTypes from 'undici'
