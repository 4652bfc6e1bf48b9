/**
 * The iterator WebIDL gives pair-iterable interfaces (Headers, FormData): it keeps only an index
 * and re-reads the current list on every `next()`, so entries added or removed during a loop are
 * seen, as the Fetch and XHR standards define for their live lists.
 * @module
 */

// Inheriting from %IteratorPrototype% gives these iterators the runtime's shared iterator methods.
const ITERATOR_PROTOTYPE = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())) as object

/**
 * An iterator over `[name, value]` pairs read afresh from `source()` at each step, projected
 * to an entry, a name or a value.
 */
export class LiveIterator<Pair extends readonly [unknown, unknown], Item> implements IterableIterator<Item> {
  #source: () => readonly Pair[]
  #project: (pair: Pair) => Item
  #tag: string
  #index = 0

  /** @param tag - the `Symbol.toStringTag`, e.g. `'Headers Iterator'`. */
  constructor (tag: string, source: () => readonly Pair[], project: (pair: Pair) => Item) {
    this.#tag = tag
    this.#source = source
    this.#project = project
  }

  /** The next item of the list as it is now, or `done` past its end. */
  next (): IteratorResult<Item> {
    const list = this.#source()
    if (this.#index >= list.length) return { value: undefined, done: true }
    return { value: this.#project(list[this.#index++]!), done: false }
  }

  /** The iterator itself, so it can be spread or used in `for...of`. */
  [Symbol.iterator] (): this {
    return this
  }

  /** `'Headers Iterator'` or `'FormData Iterator'`, as the runtime's iterators report. */
  get [Symbol.toStringTag] (): string {
    return this.#tag
  }
}

Object.setPrototypeOf(LiveIterator.prototype, ITERATOR_PROTOTYPE)
// WebIDL's iterator prototype objects have an enumerable `next`, as every operation is.
Object.defineProperty(LiveIterator.prototype, 'next', { enumerable: true })

/** Projections for the three iteration methods of a pair-iterable interface. */
export const PAIR_PROJECTIONS = {
  entries: <N, V>(pair: readonly [N, V]): [N, V] => [pair[0], pair[1]],
  keys: <N, V>(pair: readonly [N, V]): N => pair[0],
  values: <N, V>(pair: readonly [N, V]): V => pair[1]
}
