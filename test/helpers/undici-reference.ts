/**
 * The undici that differential tests and benchmarks compare conduit with. Everything that
 * compares with undici imports it from here and nowhere else, so the reference changes in one
 * place. It is undici 8, the current major, on every runtime that can load it (Node 22 and later),
 * and undici 7 on Node 20. `CONDUIT_UNDICI_REFERENCE=7` selects undici 7 on a newer runtime too,
 * to check a change against the previous major. docs/undici-differences.md ("undici 7 and undici
 * 8") lists what differs between the two majors; tests branch on {@link UNDICI_MAJOR} only there.
 */

import type * as Undici from 'undici'

/** Major version of the running Node. */
export const NODE_MAJOR = Number(process.versions.node.split('.')[0])

/** Major version of the undici used as the reference on this runtime. */
export const UNDICI_MAJOR: 7 | 8 = referenceMajor(NODE_MAJOR, process.env.CONDUIT_UNDICI_REFERENCE)

/**
 * The undici major to compare with on Node `nodeMajor`, given the `CONDUIT_UNDICI_REFERENCE`
 * override: 8 where the runtime can load it (Node 22 and later) unless the override asks for 7.
 */
export function referenceMajor (nodeMajor: number, override: string | undefined): 7 | 8 {
  if (nodeMajor < 22) return 7
  return override === '7' ? 7 : 8
}

// Both majors export the same names; the reference is typed as the current one.
const reference = (UNDICI_MAJOR === 8 ? await import('undici') : await import('undici7')) as unknown as typeof Undici

/** The reference undici module. */
export const undici: typeof Undici = reference

/** The reference's version, as its package.json says (`8.13.1`). */
export const UNDICI_VERSION: string = (await import(UNDICI_MAJOR === 8 ? 'undici/package.json' : 'undici7/package.json', { with: { type: 'json' } })).default.version

export const { Agent, Client, MockAgent, Response, cacheStores, fetch, interceptors } = reference

/** The reference's types (the current major's). */
export type * as UndiciTypes from 'undici'
