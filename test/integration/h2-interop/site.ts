/**
 * The files every interop server serves, and what a client must get back for each: the same
 * static site on nginx, nghttpd, h2o, the python3-h2 script and node:http2, so one case table
 * checks them all.
 */

import { createHash, randomBytes } from 'node:crypto'
import { checksummedBody } from '../helpers/checksummed-body.js'

/** Streams the concurrency case opens at once on one connection. */
export const CONCURRENT_STREAMS = 100

/** The body of `/hello.txt`. */
export const HELLO = 'hello over HTTP/2\n'

/** Name of the `i`th file the concurrency case fetches (`many-<i>.txt`). */
export const manyFile = (i: number): string => `many-${i}.txt`

/** Hex SHA-256 of `bytes`. */
export const sha256 = (bytes: Buffer | Uint8Array): string => createHash('sha256').update(bytes).digest('hex')

/** The site: file name to content. */
export interface InteropSite {
  files: Record<string, Buffer | string>
  /** `/big.bin`: 1 MiB and 3 bytes, so it ends off any frame or window boundary. */
  big: Buffer
  /** `/large.bin`: 16 MiB, more than any window and socket buffer hold, so it stays in flight while unread. */
  large: Buffer
}

/** A fresh site with random large files. */
export function interopSite (): InteropSite {
  const big = randomBytes(1024 * 1024 + 3)
  const large = randomBytes(16 * 1024 * 1024)
  const files: Record<string, Buffer | string> = { 'hello.txt': HELLO, 'big.bin': big, 'large.bin': large }
  for (let i = 0; i < CONCURRENT_STREAMS; i++) files[manyFile(i)] = checksummedBody(`/${manyFile(i)}`)
  return { files, big, large }
}
