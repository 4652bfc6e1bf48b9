/**
 * The undici that differential tests and benchmarks compare conduit with, chosen for the running
 * Node: the current major (8) where the runtime can load it (Node 22 and later), undici 7 on
 * Node 20. Everything that compares with undici imports it from here and nowhere else, so the
 * reference changes in one place. docs/undici-differences.md lists what differs between the two
 * majors where a test meets it; conduit follows the current major.
 */

import type * as Undici from 'undici'

/** Major version of the running Node. */
export const NODE_MAJOR = Number(process.versions.node.split('.')[0])

/** Major version of the undici used as the reference on this runtime. */
export const UNDICI_MAJOR: 7 | 8 = NODE_MAJOR >= 22 ? 8 : 7

// Both majors export the same names; the reference is typed as the current one.
const reference = (UNDICI_MAJOR === 8 ? await import('undici') : await import('undici7')) as unknown as typeof Undici

/** The reference undici module. */
export const undici: typeof Undici = reference

/** The reference's version, as its package.json says (`8.13.1`). */
export const UNDICI_VERSION: string = (await import(UNDICI_MAJOR === 8 ? 'undici/package.json' : 'undici7/package.json', { with: { type: 'json' } })).default.version

export const { Agent, Client, MockAgent, Response, cacheStores, fetch, interceptors } = reference

/** The reference's types (the current major's). */
export type * as UndiciTypes from 'undici'
