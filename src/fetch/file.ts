/**
 * `File`: the runtime's own File class, so a File made by conduit, by the runtime's FormData
 * or by `new File()` anywhere in the process is one and the same kind of object.
 * @module
 */

import { File as RuntimeFile } from 'node:buffer'

/**
 * A Blob with a name and a modification time, as read back from {@link FormData} and `formData()`.
 * @example
 * const file = new File(['hello'], 'hello.txt', { type: 'text/plain' })
 */
export const File = RuntimeFile
/** A File instance. */
export type File = RuntimeFile

/** True for any Blob (the runtime's Blob and File, and subclasses). */
export function isBlob (value: unknown): value is Blob {
  return value instanceof Blob
}

/** True for a File. */
export function isFile (value: unknown): value is RuntimeFile {
  return value instanceof RuntimeFile
}
