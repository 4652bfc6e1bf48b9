/**
 * The HPACK encoder (RFC 7541 sections 4, 6, 7): writes a flat `[name, value, name, value...]`
 * header list as a header block. A field the static or dynamic table holds costs one index; a new
 * field worth remembering is inserted into the dynamic table, so a hot path's repeated
 * `:authority`, `user-agent`, `accept`... cost a byte each from the second request on;
 * credentials go as never-indexed literals (section 7.1.3); each string is Huffman-coded unless
 * that is longer.
 * @module
 */

import { InvalidArgumentError } from '../../errors.js'
import { DEFAULT_TABLE_SIZE, DynamicTable, entrySize } from './dynamic-table.js'
import { huffmanEncode, huffmanLength } from './huffman.js'
import { STATIC_BY_NAME, STATIC_LENGTH } from './static-table.js'

/** Options of an {@link HpackEncoder}. */
export interface HpackEncoderOptions {
  /**
   * Most octets of dynamic table the encoder uses, whatever the peer allows (default 4096). The
   * table is the smaller of this and the peer's SETTINGS_HEADER_TABLE_SIZE.
   */
  maxTableSize?: number | undefined
  /**
   * The peer's SETTINGS_HEADER_TABLE_SIZE when known before the first block (default 4096, the
   * protocol's initial value); later changes go through {@link HpackEncoder.setPeerMaxTableSize}.
   */
  peerMaxTableSize?: number | undefined
  /** Whether strings are Huffman-coded when that is not longer (default true). */
  huffman?: boolean | undefined
  /** Names always sent as never-indexed literals (default {@link NEVER_INDEXED}). */
  neverIndexed?: ReadonlySet<string> | undefined
  /** Names sent as literals without indexing (default {@link NOT_INDEXED}). */
  notIndexed?: ReadonlySet<string> | undefined
}

/**
 * Fields sent as never-indexed literals (section 6.2.3): credentials, which an intermediary must
 * not index either and which a table could leak by compression side channels (section 7.1).
 */
export const NEVER_INDEXED: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie'])

/** Fields whose values change from one message to the next: indexing them would only evict useful entries. */
export const NOT_INDEXED: ReadonlySet<string> = new Set([
  ':path', 'content-length', 'content-range', 'range', 'date', 'age', 'etag', 'last-modified',
  'if-none-match', 'if-modified-since', 'if-match', 'if-unmodified-since', 'if-range', 'location', 'set-cookie'
])

/** Octets one field can take on top of its name and value: a representation's prefix and two length prefixes. */
const MAX_FIELD_OVERHEAD = 3 * 6
/** Octets of the table size updates that can open a block. */
const MAX_UPDATES_OVERHEAD = 2 * 6

/**
 * One connection's HPACK encoder. Blocks must be sent in the order they were encoded: each one
 * updates the table the peer's decoder mirrors.
 */
export class HpackEncoder {
  private readonly table: DynamicTable
  private readonly ownLimit: number
  private readonly huffman: boolean
  private readonly neverIndexed: ReadonlySet<string>
  private readonly notIndexed: ReadonlySet<string>
  /** Newest insertion number of each (name, value) in the dynamic table. */
  private readonly pairs = new Map<string, Map<string, number>>()
  /** Newest insertion number of each name in the dynamic table. */
  private readonly names = new Map<string, number>()
  /** Table sizes to announce at the next block's start (section 4.2): the smallest, then the last. */
  private smallestPending = -1
  private lastPending = -1

  constructor (options: HpackEncoderOptions = {}) {
    this.ownLimit = options.maxTableSize ?? DEFAULT_TABLE_SIZE
    this.huffman = options.huffman ?? true
    this.neverIndexed = options.neverIndexed ?? NEVER_INDEXED
    this.notIndexed = options.notIndexed ?? NOT_INDEXED
    const peerLimit = options.peerMaxTableSize ?? DEFAULT_TABLE_SIZE
    this.table = new DynamicTable(peerLimit, (name, value, insertion) => {
      const values = this.pairs.get(name)
      if (values?.get(value) === insertion) {
        values.delete(value)
        if (values.size === 0) this.pairs.delete(name)
      }
      if (this.names.get(name) === insertion) this.names.delete(name)
    })
    // The peer's decoder starts at its own limit: a smaller one of ours must be announced.
    if (this.ownLimit < peerLimit) this.smallestPending = this.lastPending = this.ownLimit
  }

  /** Octets the dynamic table holds now (section 4.1). */
  get tableSize (): number { return this.table.size }

  /** Entries of the dynamic table, newest first, as [name, value]. */
  tableEntries (): Array<[string, string]> { return this.table.entries() }

  /**
   * Takes the peer's SETTINGS_HEADER_TABLE_SIZE. The change is announced by a table size update
   * at the start of the next block; two changes before it announce the smaller first (section 4.2).
   */
  setPeerMaxTableSize (peerLimit: number): void {
    const size = Math.min(this.ownLimit, peerLimit)
    this.smallestPending = this.smallestPending === -1 ? size : Math.min(this.smallestPending, size)
    this.lastPending = size
  }

  /** An upper bound of the octets {@link encodeInto} writes for `fields`. */
  static maxEncodedLength (fields: readonly string[]): number {
    let length = MAX_UPDATES_OVERHEAD
    for (let i = 0; i < fields.length; i++) length += fields[i]!.length
    return length + (fields.length >>> 1) * MAX_FIELD_OVERHEAD
  }

  /** Encodes `fields` (`[name, value...]`, names lowercase) as a new block. */
  encode (fields: readonly string[]): Buffer {
    const out = Buffer.allocUnsafe(HpackEncoder.maxEncodedLength(fields))
    return out.subarray(0, this.encodeInto(fields, out, 0))
  }

  /**
   * Encodes `fields` into `out` from `offset`, which must leave at least
   * {@link HpackEncoder.maxEncodedLength} octets; returns the offset after the block.
   */
  encodeInto (fields: readonly string[], out: Buffer, offset: number): number {
    if (fields.length % 2 !== 0) throw new InvalidArgumentError(`HPACK: a header list needs a value for each name, got ${fields.length} strings`)
    if (out.length - offset < HpackEncoder.maxEncodedLength(fields)) throw new InvalidArgumentError(`HPACK: the output has ${out.length - offset} octets of room, fewer than the ${HpackEncoder.maxEncodedLength(fields)} the block may need`)
    for (let i = 0; i < fields.length; i++) {
      const text = fields[i]!
      for (let j = 0; j < text.length; j++) {
        if (text.charCodeAt(j) > 0xff) throw new InvalidArgumentError(`HPACK: the ${i % 2 === 0 ? 'name' : `value of ${fields[i - 1]!}`} has a character past 0xff at ${j}`)
      }
    }
    let at = this.writeSizeUpdates(out, offset)
    for (let i = 0; i < fields.length; i += 2) at = this.writeField(fields[i]!, fields[i + 1]!, out, at)
    return at
  }

  private writeSizeUpdates (out: Buffer, offset: number): number {
    if (this.lastPending === -1) return offset
    let at = offset
    if (this.smallestPending < this.lastPending) {
      at = writeInteger(out, at, 0x20, 5, this.smallestPending)
      this.table.resize(this.smallestPending)
    }
    if (at !== offset || this.lastPending !== this.table.maxSize) {
      at = writeInteger(out, at, 0x20, 5, this.lastPending)
      this.table.resize(this.lastPending)
    }
    this.smallestPending = -1
    this.lastPending = -1
    return at
  }

  private writeField (name: string, value: string, out: Buffer, offset: number): number {
    const known = STATIC_BY_NAME.get(name)
    const sensitive = this.neverIndexed.has(name)
    if (!sensitive) {
      const staticIndex = known?.values.get(value)
      if (staticIndex !== undefined) return writeInteger(out, offset, 0x80, 7, staticIndex)
      const insertion = this.pairs.get(name)?.get(value)
      if (insertion !== undefined) return writeInteger(out, offset, 0x80, 7, this.dynamicIndex(insertion))
    }
    let nameIndex = known?.index
    if (nameIndex === undefined) {
      const insertion = this.names.get(name)
      if (insertion !== undefined) nameIndex = this.dynamicIndex(insertion)
    }
    let at: number
    if (sensitive) {
      at = writeInteger(out, offset, 0x10, 4, nameIndex ?? 0)
    } else if (this.notIndexed.has(name) || entrySize(name, value) > this.table.maxSize) {
      at = writeInteger(out, offset, 0x00, 4, nameIndex ?? 0)
    } else {
      at = writeInteger(out, offset, 0x40, 6, nameIndex ?? 0)
      this.remember(name, value)
    }
    if (nameIndex === undefined) at = this.writeString(name, out, at)
    return this.writeString(value, out, at)
  }

  private remember (name: string, value: string): void {
    if (!this.table.add(name, value)) return
    const insertion = this.table.inserted - 1
    let values = this.pairs.get(name)
    if (values === undefined) this.pairs.set(name, values = new Map())
    values.set(value, insertion)
    this.names.set(name, insertion)
  }

  private dynamicIndex (insertion: number): number {
    return STATIC_LENGTH + this.table.inserted - insertion
  }

  private writeString (text: string, out: Buffer, offset: number): number {
    if (this.huffman) {
      const coded = huffmanLength(text)
      // Ties go to Huffman, as in RFC 7541 Appendix C.6 (`307` is 3 octets either way).
      if (coded <= text.length) return huffmanEncode(text, out, writeInteger(out, offset, 0x80, 7, coded))
    }
    const at = writeInteger(out, offset, 0x00, 7, text.length)
    return at + out.write(text, at, 'latin1')
  }
}

/** Writes `value` as an integer with a `prefixBits`-bit prefix after the `pattern` bits (section 5.1). */
function writeInteger (out: Uint8Array, offset: number, pattern: number, prefixBits: number, value: number): number {
  const mask = (1 << prefixBits) - 1
  let at = offset
  if (value < mask) {
    out[at++] = pattern | value
    return at
  }
  out[at++] = pattern | mask
  let rest = value - mask
  while (rest >= 0x80) {
    out[at++] = (rest & 0x7f) | 0x80
    rest >>>= 7
  }
  out[at++] = rest
  return at
}
