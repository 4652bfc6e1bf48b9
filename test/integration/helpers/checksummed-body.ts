/** Bodies that name their URL, so a response served for the wrong URL is caught by its reader. */

import { createHash } from 'node:crypto'

/** The body an origin sends for `path`: the path and its SHA-256. */
export function checksummedBody (path: string): string {
  return `${path} ${createHash('sha256').update(path).digest('hex')}`
}
