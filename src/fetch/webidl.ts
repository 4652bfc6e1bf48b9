/**
 * The few WebIDL argument rules the Fetch, WebSocket and EventSource classes share: a method
 * called with too few arguments throws, a string argument converts with ToString (which refuses
 * Symbols), numbers and booleans convert as WebIDL's integer and boolean types, and a
 * dictionary argument must be an object, undefined or null.
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

/** Converts `value` as WebIDL's ByteString: a DOMString whose every code unit is at most 0xFF. */
export function toByteString (value: unknown, where: string): string {
  const text = toDOMString(value, where)
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    // The value itself stays out of the message: it may be a header value holding a credential.
    if (code > 0xff) throw new TypeError(`${where}: a string is not a ByteString: it has U+${code.toString(16).toUpperCase().padStart(4, '0')} at index ${i}, above U+00FF`)
  }
  return text
}

/** Converts `value` as WebIDL's USVString: a DOMString whose lone surrogates become U+FFFD. */
export function toUSVString (value: unknown, where: string): string {
  // String.prototype.toWellFormed is ES2024; every supported runtime has it, the configured lib does not.
  return (toDOMString(value, where) as string & { toWellFormed: () => string }).toWellFormed()
}

/**
 * Converts `value` as a WebIDL unsigned integer of `bits` bits (`unsigned short` is 16,
 * `unsigned long` 32): ToNumber (a Symbol or BigInt throws), NaN and infinities to 0, the
 * fraction dropped, then taken modulo 2^bits.
 */
export function toUnsignedInteger (value: unknown, bits: 16 | 32, where: string): number {
  if (typeof value === 'symbol' || typeof value === 'bigint') throw new TypeError(`${where}: ${describeValue(value)} cannot be converted to a number`)
  const number = Number(value)
  if (!Number.isFinite(number)) return 0
  const modulus = 2 ** bits
  const integer = Math.trunc(number) % modulus
  return integer < 0 ? integer + modulus : integer + 0
}

/**
 * The object a WebIDL dictionary argument is read from: `undefined` and `null` read as empty,
 * anything else that is not an object throws.
 */
export function dictionaryArgument (value: unknown, where: string): Record<string, unknown> {
  if (value === undefined || value === null) return {}
  if (typeof value !== 'object' && typeof value !== 'function') throw new TypeError(`${where}: the dictionary argument must be an object, got ${describeValue(value)}`)
  return value as Record<string, unknown>
}

/**
 * The bytes of `value` when it is a WebIDL `BufferSource` (an ArrayBuffer or a view of one), as
 * a view without a copy; null when it is not one, which a union with a string type then reads as
 * text: a SharedArrayBuffer is never a BufferSource (it converts to the string
 * `[object SharedArrayBuffer]`), and a view of one is refused with a TypeError, as WebIDL refuses
 * shared memory where an interface does not allow it.
 */
export function bufferSourceBytes (value: unknown, where: string): Uint8Array | null {
  if (value instanceof Uint8Array || ArrayBuffer.isView(value)) {
    const view = value as ArrayBufferView
    if (typeof SharedArrayBuffer === 'function' && view.buffer instanceof SharedArrayBuffer) {
      throw new TypeError(`${where}: ${describeValue(value)} is a view of a SharedArrayBuffer, which cannot be sent; copy it into an ArrayBuffer first`)
    }
    return value instanceof Uint8Array ? value : new Uint8Array(view.buffer, view.byteOffset, view.byteLength)
  }
  if (value instanceof ArrayBuffer) return new Uint8Array(value)
  return null
}

/**
 * Defines WebIDL constants on an interface and its prototype: enumerable, neither writable nor
 * configurable (a class's `static` field is both).
 */
export function defineConstants (constructor: { prototype: object }, constants: Readonly<Record<string, number>>): void {
  for (const [name, value] of Object.entries(constants)) {
    const descriptor = { value, enumerable: true, writable: false, configurable: false }
    Object.defineProperty(constructor, name, descriptor)
    Object.defineProperty(constructor.prototype, name, descriptor)
  }
}

/** Gives an interface's prototype its WebIDL `Symbol.toStringTag` (not writable, not enumerable). */
export function defineToStringTag (prototype: object, name: string): void {
  Object.defineProperty(prototype, Symbol.toStringTag, { value: name, configurable: true })
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
