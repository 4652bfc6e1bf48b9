/**
 * `Cache.addAll`'s network part: fetch every request with conduit's fetch, refuse what may not be
 * cached, and read every body before anything is stored.
 * @module
 */

import { fetch } from '../fetch/fetch.js'
import { Request } from '../fetch/request.js'
import type { Response } from '../fetch/response.js'
import { hasVaryStar } from './entries.js'

/** A fetched response and its body bytes, ready to be stored. */
export interface FetchedEntry {
  request: Request
  response: Response
  body: Uint8Array
}

async function fetchOne (request: Request, signal: AbortSignal, abortAll: (reason: Error) => void): Promise<FetchedEntry> {
  const response = await fetch(request, { signal: AbortSignal.any([request.signal, signal]) })
  const { status } = response
  if (response.type === 'error' || status === 206 || status < 200 || status > 299) {
    await response.body?.cancel()
    throw new TypeError(`Cache.addAll: ${request.url} answered with status ${status}, which may not be cached`)
  }
  if (hasVaryStar(response.headers)) {
    const err = new TypeError(`Cache.addAll: ${request.url} answered with Vary: *, which may not be cached`)
    abortAll(err)
    await response.body?.cancel()
    throw err
  }
  return { request, response, body: new Uint8Array(await response.arrayBuffer()) }
}

/**
 * Fetches `requests` in parallel. The first refusal rejects the whole call; a `Vary: *` also
 * aborts the fetches still running, as the standard says.
 */
export async function fetchAll (requests: readonly Request[]): Promise<FetchedEntry[]> {
  const controller = new AbortController()
  const abortAll = (reason: Error): void => { controller.abort(reason) }
  return await Promise.all(requests.map((request) => fetchOne(request, controller.signal, abortAll)))
}
