/**
 * `FormData`: an ordered list of name/value entries whose values are strings or Files.
 * @module
 */

import { File, isBlob, isFile } from './file.js'
import { describeValue } from '../validation/describe-value.js'
import { LiveIterator, PAIR_PROJECTIONS } from './live-iterator.js'
import type { SpecIterableIterator } from './spec-iterator.js'
import { enumerableMembers, requireArguments, toDOMString } from './webidl.js'

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
    return toDOMString(value, `FormData.${method}`)
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
  // The default keeps `FormData.length` at 0: the form argument is optional in WebIDL.
  constructor (form: undefined = undefined) {
    if (form !== undefined) {
      throw new TypeError(`FormData: the constructor takes no argument, got ${describeValue(form)}`)
    }
  }

  /** Adds an entry, keeping existing ones with the same name. `filename` names a Blob value. */
  // The filename default keeps `append.length` at 2; whether it was passed is read from arguments.
  append (name: string, value: string | Blob | File, filename: string | undefined = undefined): void {
    requireArguments(arguments.length, 2, 'FormData.append')
    this.#entries.push([toDOMString(name, 'FormData.append'), toEntryValue(value, filename === undefined ? undefined : toDOMString(filename, 'FormData.append'), 'append', arguments.length)])
  }

  /** Replaces every entry named `name` with one entry (at the position of the first). */
  set (name: string, value: string | Blob | File, filename: string | undefined = undefined): void {
    requireArguments(arguments.length, 2, 'FormData.set')
    const key = toDOMString(name, 'FormData.set')
    const entry: [string, FormDataEntryValue] = [key, toEntryValue(value, filename === undefined ? undefined : toDOMString(filename, 'FormData.set'), 'set', arguments.length)]
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
    requireArguments(arguments.length, 1, 'FormData.delete')
    const key = toDOMString(name, 'FormData.delete')
    this.#entries = this.#entries.filter(([n]) => n !== key)
  }

  /** The first value named `name`, or null. */
  get (name: string): FormDataEntryValue | null {
    requireArguments(arguments.length, 1, 'FormData.get')
    const key = toDOMString(name, 'FormData.get')
    const entry = this.#entries.find(([n]) => n === key)
    return entry === undefined ? null : entry[1]
  }

  /** Every value named `name`, in order. */
  getAll (name: string): FormDataEntryValue[] {
    requireArguments(arguments.length, 1, 'FormData.getAll')
    const key = toDOMString(name, 'FormData.getAll')
    return this.#entries.filter(([n]) => n === key).map(([, v]) => v)
  }

  /** True when at least one entry is named `name`. */
  has (name: string): boolean {
    requireArguments(arguments.length, 1, 'FormData.has')
    const key = toDOMString(name, 'FormData.has')
    return this.#entries.some(([n]) => n === key)
  }

  /** Calls `callback(value, name, formData)` for each entry, re-reading the list at each step. */
  forEach (callback: (value: FormDataEntryValue, name: string, form: FormData) => void, thisArg: unknown = undefined): void {
    requireArguments(arguments.length, 1, 'FormData.forEach')
    if (typeof callback !== 'function') throw new TypeError(`FormData.forEach: callback must be a function, got ${describeValue(callback)}`)
    for (let index = 0; index < this.#entries.length; index++) {
      const [name, value] = this.#entries[index]!
      callback.call(thisArg, value, name, this)
    }
  }

  // A private method call is also the brand check: another receiver throws a TypeError up front.
  #iterate<Item> (project: (pair: [string, FormDataEntryValue]) => Item): SpecIterableIterator<Item> {
    // The iterator inherits %IteratorPrototype%, whose helpers (map, filter...) the type names: Node 22 and later have them.
    return new LiveIterator('FormData Iterator', () => this.#entries, project) as unknown as SpecIterableIterator<Item>
  }

  /** `[name, value]` pairs in insertion order, read live: entries appended during the loop are visited. */
  entries (): SpecIterableIterator<[string, FormDataEntryValue]> {
    return this.#iterate(PAIR_PROJECTIONS.entries<string, FormDataEntryValue>)
  }

  /** Entry names in insertion order. */
  keys (): SpecIterableIterator<string> {
    return this.#iterate(PAIR_PROJECTIONS.keys<string, FormDataEntryValue>)
  }

  /** Entry values in insertion order. */
  values (): SpecIterableIterator<FormDataEntryValue> {
    return this.#iterate(PAIR_PROJECTIONS.values<string, FormDataEntryValue>)
  }

  /** The same function as {@link FormData.entries}, as WebIDL requires (assigned below the class). */
  declare [Symbol.iterator]: () => SpecIterableIterator<[string, FormDataEntryValue]>

  /** `'FormData'`, so `Object.prototype.toString` recognises instances as the runtime's classes do. */
  get [Symbol.toStringTag] (): string {
    return 'FormData'
  }
}

enumerableMembers(FormData.prototype)
Object.defineProperty(FormData.prototype, Symbol.iterator, {
  value: FormData.prototype.entries, writable: true, enumerable: false, configurable: true
})
