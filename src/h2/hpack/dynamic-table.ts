/**
 * The dynamic table of RFC 7541 section 2.3.2 and its size accounting (sections 4.1, 4.3, 4.4):
 * a first-in first-out list of (name, value) entries, newest first by index, each counted as its
 * name's and value's octets plus 32, evicted from the oldest end to stay within the maximum size.
 * @module
 */

/** Octets section 4.1 adds to each entry's name and value for its bookkeeping. */
export const ENTRY_OVERHEAD = 32

/** The table size both ends start with (RFC 9113 section 6.5.2, SETTINGS_HEADER_TABLE_SIZE). */
export const DEFAULT_TABLE_SIZE = 4096

/** The size of an entry (section 4.1); names and values are latin1, one char an octet. */
export function entrySize (name: string, value: string): number {
  return name.length + value.length + ENTRY_OVERHEAD
}

/** Called for each entry the table evicts, oldest first, with its insertion number. */
export type EvictionListener = (name: string, value: string, insertion: number) => void

/** One end's copy of the dynamic table; encoder and decoder keep theirs in step. */
export class DynamicTable {
  /** Sum of the entries' sizes. */
  size = 0
  /** The maximum size in force (the last table size update). */
  maxSize: number
  /** Entries held. */
  length = 0
  /** Entries ever inserted: the newest entry's insertion number is `inserted - 1`. */
  inserted = 0
  private names: string[] = new Array<string>(16)
  private values: string[] = new Array<string>(16)
  private mask = 15
  /** Ring position of the oldest entry. */
  private oldest = 0
  private readonly onEvict: EvictionListener | undefined

  constructor (maxSize: number, onEvict?: EvictionListener) {
    this.maxSize = maxSize
    this.onEvict = onEvict
  }

  /** The name of the entry `i` places from the newest (0 is the newest). */
  nameAt (i: number): string {
    return this.names[(this.oldest + this.length - 1 - i) & this.mask]!
  }

  /** The value of the entry `i` places from the newest (0 is the newest). */
  valueAt (i: number): string {
    return this.values[(this.oldest + this.length - 1 - i) & this.mask]!
  }

  /** The entries, newest first, as [name, value]. */
  entries (): Array<[string, string]> {
    const entries: Array<[string, string]> = []
    for (let i = 0; i < this.length; i++) entries.push([this.nameAt(i), this.valueAt(i)])
    return entries
  }

  /**
   * Inserts an entry as the newest after evicting what it needs room for (section 4.4); an entry
   * larger than the maximum size empties the table and is not inserted. Returns whether it was.
   */
  add (name: string, value: string): boolean {
    const size = entrySize(name, value)
    if (size > this.maxSize) {
      this.clear()
      return false
    }
    this.evictTo(this.maxSize - size)
    if (this.length > this.mask) this.grow()
    const at = (this.oldest + this.length) & this.mask
    this.names[at] = name
    this.values[at] = value
    this.length++
    this.inserted++
    this.size += size
    return true
  }

  /** Evicts every entry, as inserting an entry larger than the table does (section 4.4). */
  clear (): void {
    this.evictTo(0)
  }

  /** Applies a new maximum size, evicting the oldest entries until the table fits (section 4.3). */
  resize (maxSize: number): void {
    this.maxSize = maxSize
    this.evictTo(maxSize)
  }

  private evictTo (limit: number): void {
    while (this.size > limit) {
      const at = this.oldest
      const name = this.names[at]!
      const value = this.values[at]!
      this.size -= entrySize(name, value)
      // Drop the strings so an evicted header value is not kept alive by the ring.
      this.names[at] = ''
      this.values[at] = ''
      this.oldest = (at + 1) & this.mask
      this.length--
      this.onEvict?.(name, value, this.inserted - this.length - 1)
    }
  }

  private grow (): void {
    const capacity = (this.mask + 1) * 2
    const names = new Array<string>(capacity)
    const values = new Array<string>(capacity)
    for (let i = 0; i < this.length; i++) {
      names[i] = this.names[(this.oldest + i) & this.mask]!
      values[i] = this.values[(this.oldest + i) & this.mask]!
    }
    this.names = names
    this.values = values
    this.mask = capacity - 1
    this.oldest = 0
  }
}
