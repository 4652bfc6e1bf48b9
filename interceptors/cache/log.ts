/**
 * The cache's debug log: every decision (stored or not and why, hit, stale, revalidated, store
 * errors) under its own namespace, enabled with `NODE_DEBUG=conduit:cache`.
 * @module
 */

import { debuglog } from 'node:util'
import type { CacheKey } from '../../src/handler.js'
import { showRequest } from '../../src/handler.js'

/** Writes one line when `NODE_DEBUG` lists `conduit:cache`. */
export const log = debuglog('conduit:cache')

/**
 * Whether {@link log} writes anything (`NODE_DEBUG` is read when the process starts), so the
 * hit path can skip building and passing log text altogether.
 */
export const logEnabled: boolean = log.enabled

/** `GET http://host/path`, for log lines (user information of an origin that is no URL hidden). */
export function describeKey (key: CacheKey): string {
  return showRequest(key)
}
