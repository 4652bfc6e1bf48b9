/**
 * `FormData`: an ordered list of name/value entries whose values are strings or Files.
 * @module
 */

import { File, isBlob, isFile } from './file.js'
import { describeValue } from '../validation/describe-value.js'

/** A FormData value as read back: a string or a File. */
export type FormDataEntryValue = string | File

/** Anything with the FormData iteration shape (this library's FormData or the runtime's). */
export interface FormDataLike {
  entries (): IterableIterator<[string, FormDataEntryValue]>
}

/** True for this library's FormData and the runtime's own (a value made by the global class). */
export function isFormDataLike (value: unknown): value is FormDataLike {
  return value instanceof FormData || (
    typeof value === 'object' && value !== null &&
    Object.prototype.toString.call(value) === '[object FormData]' &&
    typeof (value as FormDataLike).entries === 'function'
  )
}

function toEntryValue (value: unknown, filename: string | undefined, method: string, argc: number): FormDataEntryValue {
  if (!isBlob(value)) {
    if (argc > 2) throw new TypeError(`FormData.${method}: a filename is only allowed with a Blob value, got ${describeValue(value)}`)
    return String(value)
  }
  if (isFile(value) && filename === undefined) return value
  const name = filename ?? (isFile(value) ? value.name : 'blob')
  const options: { type: string, lastModified?: number } = { type: value.type }
  if (isFile(value)) options.lastModified = value.lastModified
  // Wrapping a Blob in a File references its bytes; nothing is copied.
  return new File([value as never], name, options)
}

/**
 * Name/value pairs sent as `multipart/form-data` when used as a body.
 * @example
 * const form = new FormData()
 * form.append('user', 'ada')
 * form.append('avatar', new Blob([bytes], { type: 'image/png' }), 'ada.png')
 * await fetch('http://127.0.0.1:3000/upload', { method: 'POST', body: form })
 */
export class FormData {
  #entries: Array<[string, FormDataEntryValue]> = []

  /** Takes no argument: an HTML form element does not exist outside a browser. */
  constructor (form?: undefined) {
    if (form !== undefined) {
      throw new TypeError(`FormData: the constructor takes no argument, got ${describeValue(form)}`)
    }
  }

  /** Adds an entry, keeping existing ones with the same name. `filename` names a Blob value. */
  append (name: string, value: string | Blob | File, filename?: string): void {
    this.#entries.push([String(name), toEntryValue(value, filename === undefined ? undefined : String(filename), 'append', arguments.length)])
  }

  /** Replaces every entry named `name` with one entry (at the position of the first). */
  set (name: string, value: string | Blob | File, filename?: string): void {
    const key = String(name)
    const entry: [string, FormDataEntryValue] = [key, toEntryValue(value, filename === undefined ? undefined : String(filename), 'set', arguments.length)]
    const first = this.#entries.findIndex(([n]) => n === key)
    if (first === -1) {
      this.#entries.push(entry)
      return
    }
    this.#entries = this.#entries.filter(([n], i) => i === first || n !== key)
    this.#entries[first] = entry
  }

  /** Removes every entry named `name`. */
  delete (name: string): void {
    const key = String(name)
    this.#entries = this.#entries.filter(([n]) => n !== key)
  }

  /** The first value named `name`, or null. */
  get (name: string): FormDataEntryValue | null {
    const key = String(name)
    const entry = this.#entries.find(([n]) => n === key)
    return entry === undefined ? null : entry[1]
  }

  /** Every value named `name`, in order. */
  getAll (name: string): FormDataEntryValue[] {
    const key = String(name)
    return this.#entries.filter(([n]) => n === key).map(([, v]) => v)
  }

  /** True when at least one entry is named `name`. */
  has (name: string): boolean {
    const key = String(name)
    return this.#entries.some(([n]) => n === key)
  }

  /** Calls `callback(value, name, formData)` for each entry. */
  forEach (callback: (value: FormDataEntryValue, name: string, form: FormData) => void, thisArg?: unknown): void {
    if (typeof callback !== 'function') throw new TypeError(`FormData.forEach: callback must be a function, got ${describeValue(callback)}`)
    for (const [name, value] of this.#entries) callback.call(thisArg, value, name, this)
  }

  /** `[name, value]` pairs in insertion order. */
  * entries (): IterableIterator<[string, FormDataEntryValue]> {
    for (const [name, value] of this.#entries) yield [name, value]
  }

  /** Entry names in insertion order. */
  * keys (): IterableIterator<string> {
    for (const [name] of this.#entries) yield name
  }

  /** Entry values in insertion order. */
  * values (): IterableIterator<FormDataEntryValue> {
    for (const [, value] of this.#entries) yield value
  }

  /** Same as {@link FormData.entries}. */
  [Symbol.iterator] (): IterableIterator<[string, FormDataEntryValue]> {
    return this.entries()
  }

  /** `'FormData'`, so `Object.prototype.toString` recognises instances as the runtime's classes do. */
  get [Symbol.toStringTag] (): string {
    return 'FormData'
  }
}
