/**
 * The iterator types of the Fetch and XHR classes' iteration methods (`Headers#keys()`,
 * `FormData#entries()`...), as undici names them. The iterators inherit %IteratorPrototype%, so
 * where the runtime has iterator helpers (Node 22 and later) `map`, `filter`, `take`... are there.
 * Types only.
 * @module
 */

/** The `next()` of an iterator. */
export interface SpecIterator<T, TReturn = any, TNext = undefined> {
  /** The next item, or `done` past the end. */
  next (...args: [] | [TNext]): IteratorResult<T, TReturn>
}

/** An iterator with the iterator helpers of %IteratorPrototype% (Node 22 and later). */
export interface SpecIteratorObject<T, TReturn = undefined, TNext = unknown> extends SpecIterator<T, TReturn, TNext> {
  /** The iterator itself. */
  [Symbol.iterator] (): SpecIteratorObject<T, TReturn, TNext>
  /** Iterator helper: each item mapped. */
  map<U> (callbackfn: (value: T, index: number) => U): SpecIteratorObject<U>
  /** Iterator helper: the items that pass the type guard. */
  filter<S extends T> (predicate: (value: T, index: number) => value is S): SpecIteratorObject<S>
  /** Iterator helper: the items that pass. */
  filter (predicate: (value: T, index: number) => unknown): SpecIteratorObject<T>
  /** Iterator helper: the first `limit` items. */
  take (limit: number): SpecIteratorObject<T>
  /** Iterator helper: the items after the first `count`. */
  drop (count: number): SpecIteratorObject<T>
  /** Iterator helper: each item mapped to several. */
  flatMap<U> (callbackfn: (value: T, index: number) => Iterator<U> | Iterable<U>): SpecIteratorObject<U>
  /** Iterator helper: the items folded into one, starting from the first. */
  reduce (callbackfn: (previousValue: T, currentValue: T, currentIndex: number) => T): T
  /** Iterator helper: the items folded into one, starting from `initialValue`. */
  reduce (callbackfn: (previousValue: T, currentValue: T, currentIndex: number) => T, initialValue: T): T
  /** Iterator helper: the items folded into a value of another type. */
  reduce<U> (callbackfn: (previousValue: U, currentValue: T, currentIndex: number) => U, initialValue: U): U
  /** Iterator helper: the remaining items as an array. */
  toArray (): T[]
  /** Iterator helper: calls `callbackfn` for each item. */
  forEach (callbackfn: (value: T, index: number) => void): void
  /** Iterator helper: whether any item passes. */
  some (predicate: (value: T, index: number) => unknown): boolean
  /** Iterator helper: whether every item passes. */
  every (predicate: (value: T, index: number) => unknown): boolean
  /** Iterator helper: the first item that passes the type guard. */
  find<S extends T> (predicate: (value: T, index: number) => value is S): S | undefined
  /** Iterator helper: the first item that passes. */
  find (predicate: (value: T, index: number) => unknown): T | undefined
  /** `'Headers Iterator'`, `'FormData Iterator'`. */
  readonly [Symbol.toStringTag]: string
}

/** What `keys()`, `values()`, `entries()` and `[Symbol.iterator]()` of Headers and FormData return. */
export interface SpecIterableIterator<T> extends SpecIteratorObject<T> {
  /** The iterator itself. */
  [Symbol.iterator] (): SpecIterableIterator<T>
}

/** Something whose `[Symbol.iterator]()` gives a {@link SpecIterableIterator}. */
export interface SpecIterable<T> {
  /** A fresh iterator. */
  [Symbol.iterator] (): SpecIterableIterator<T>
}
