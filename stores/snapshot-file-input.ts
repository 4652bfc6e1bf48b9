/**
 * Reading snapshot files as untrusted input: the JSON text itself (missing, unreadable, cut
 * short) and the problem of one field, so that every bad file fails with a
 * `SnapshotFileError` naming the file, the entry and the field.
 * @module
 */

import { readFile } from 'node:fs/promises'
import { SnapshotFileError } from '../src/handler.js'

/** One bad field of a file: the entry it is in (none for a file-level field) and its path. */
export class FileProblem extends Error {
  /** The entry at fault: its index, or its key in an object layout. */
  readonly entry: number | string | undefined
  /** The field's path within the entry (empty for the entry itself), or within the file when there is no entry. */
  readonly field: string

  constructor (entry: number | string | undefined, field: string, problem: string) {
    const name = entry === undefined ? '' : `entry ${typeof entry === 'number' ? entry : JSON.stringify(entry)}`
    const where = name === '' ? field : field === '' ? name : `${name}: ${field}`
    super(`${where === '' ? 'the content' : where} ${problem}`)
    this.entry = entry
    this.field = field
  }
}

/** True for a plain object (not null, not an array). */
export function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The kind of a bad value for a message (`null`, `an array`, `string`...): never the value, which may be a secret. */
export function describeKind (value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value
}

/** A non-negative finite number of milliseconds, or the problem. */
export function checkMilliseconds (value: unknown, entry: number | string | undefined, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new FileProblem(entry, field, `must be a non-negative number of milliseconds, got ${typeof value === 'number' ? String(value) : describeKind(value)}`)
  }
  return value
}

/**
 * Reads and parses a JSON file. Resolves to `undefined` when the file does not exist; rejects
 * with a {@link SnapshotFileError} naming the file when it cannot be read or is not JSON (a
 * file that ends inside its JSON is called cut short, which is what a killed writer of another
 * tool leaves).
 */
export async function readJsonFile (resolved: string, what: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(resolved, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new SnapshotFileError(`could not read ${what} ${resolved}: ${(err as Error).message}`, resolved, { cause: err })
  }
  try {
    return JSON.parse(text)
  } catch (err) {
    // No cause: the parser's error may quote the file's text.
    throw new SnapshotFileError(`${what} ${resolved} is not valid JSON: ${jsonProblem(text, (err as Error).message)}`, resolved)
  }
}

/**
 * Where the JSON broke, by line and column. The parser's own message may quote the text around
 * the fault, which may be a secret, so it is not passed on.
 */
function jsonProblem (text: string, message: string): string {
  if (/end of (?:JSON )?input|Unterminated/i.test(message) || text.trim() === '') return 'it ends inside its JSON (the file was cut short)'
  const position = Number(/position (\d+)/.exec(message)?.[1] ?? NaN)
  if (!Number.isInteger(position)) return 'malformed JSON'
  const before = text.slice(0, position)
  const line = before.split('\n').length
  return `malformed JSON at line ${line}, column ${position - before.lastIndexOf('\n')}`
}

/** The {@link SnapshotFileError} for a problem found in a parsed file. */
export function fileError (resolved: string, what: string, err: unknown): SnapshotFileError {
  if (err instanceof FileProblem) {
    return new SnapshotFileError(`${what} ${resolved} is not a ${what}: ${err.message}`, resolved, { cause: err, entry: err.entry, field: err.field })
  }
  return new SnapshotFileError(`${what} ${resolved} is not a ${what}: ${(err as Error).message}`, resolved, { cause: err })
}
