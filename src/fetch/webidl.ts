/**
 * The few WebIDL argument rules the Fetch classes share: a method called with too few arguments
 * throws, and a string argument converts with ToString, which refuses Symbols.
 * @module
 */

import { describeValue } from '../validation/describe-value.js'

/** Throws the TypeError WebIDL requires when `where` got fewer than `required` arguments. */
export function requireArguments (given: number, required: number, where: string): void {
  if (given < required) {
    throw new TypeError(`${where}: ${required} argument${required === 1 ? '' : 's'} required, but only ${given} given`)
  }
}

/** Converts `value` to a string as WebIDL's DOMString does; a Symbol has no string form and throws. */
export function toDOMString (value: unknown, where: string): string {
  if (typeof value === 'symbol') throw new TypeError(`${where}: ${describeValue(value)} cannot be converted to a string`)
  return `${value as string}`
}

/**
 * Makes the operations and attributes of an interface's prototype enumerable, as WebIDL defines
 * them (class syntax makes them non-enumerable): `for...in` and `Object.keys` over the prototype
 * list them, as on the runtime's classes. The iterator stays non-enumerable, as WebIDL has it.
 */
export function enumerableMembers (prototype: object): void {
  for (const key of Object.getOwnPropertyNames(prototype)) {
    if (key === 'constructor') continue
    const descriptor = Object.getOwnPropertyDescriptor(prototype, key)!
    descriptor.enumerable = true
    Object.defineProperty(prototype, key, descriptor)
  }
}
