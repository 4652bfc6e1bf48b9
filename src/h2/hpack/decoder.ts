/**
 * The HPACK decoder (RFC 7541 sections 3, 4, 6): turns a header block, fed as the HEADERS and
 * CONTINUATION payloads it arrives in, into a flat `[name, value, name, value...]` list of latin1
 * strings. The header list size (RFC 9113 section 6.5.2: name + value + 32 per field) and the
 * length of each string are checked as soon as a length prefix is read, before the string is
 * waited for or allocated. A list past its limit costs the stream, not the connection: the rest
 * of its block is read without keeping fields, only what the dynamic table needs.
 * @module
 */

import { DEFAULT_TABLE_SIZE, DynamicTable, ENTRY_OVERHEAD } from './dynamic-table.js'
import { nameProblem, nameStringProblem, valueProblem } from './field-check.js'
import { HpackError } from './hpack-error.js'
import type { HpackProblem } from './hpack-error.js'
import { huffmanDecode, huffmanMaxDecodedLength } from './huffman.js'
import { STATIC_LENGTH, STATIC_TABLE } from './static-table.js'

/** Options of an {@link HpackDecoder}. */
export interface HpackDecoderOptions {
  /** Most octets of decoded header list per block, counted as RFC 9113 section 6.5.2 counts them. */
  maxHeaderListSize: number
  /** The SETTINGS_HEADER_TABLE_SIZE the client advertises (default 4096, the protocol's initial value). */
  maxTableSize?: number | undefined
  /** Most octets of one decoded name or value (default: `maxHeaderListSize`). */
  maxStringLength?: number | undefined
}

/** A length or index past this is no valid HPACK integer here (section 5.1 leaves the bound to us). */
const MAX_INTEGER = 2 ** 31 - 1
/** Octets a field representation's prefix integer may take: its prefix and 5 continuation octets. */
const MAX_CONTINUATION_OCTETS = 5
/** `readInteger` result when the fragment ends inside the integer. */
const INCOMPLETE = -1
/** The fewest decoded octets per Huffman octet: the longest code has 30 bits. */
const MIN_HUFFMAN_BITS_PER_OCTET = 30

/**
 * One connection's HPACK decoder. A block is fed with {@link HpackDecoder.decodeFragment} (or
 * whole with {@link HpackDecoder.decode}); the list comes back when its last fragment has been
 * fed. After an error with COMPRESSION_ERROR the decoder refuses further blocks: its table no
 * longer matches the peer's.
 */
export class HpackDecoder {
  private readonly table: DynamicTable
  private readonly maxHeaderListSize: number
  private readonly maxStringLength: number
  /** The SETTINGS_HEADER_TABLE_SIZE in force: no table size update may exceed it. */
  private settingsLimit: number
  /** After the limit was lowered below the table's size, the next block must start by updating to at most this. */
  private requiredUpdate = -1
  private scratch: Buffer = Buffer.allocUnsafe(256)
  private failed: HpackError | null = null

  // State of the block being decoded.
  private fields: string[] = []
  private listSize = 0
  private fieldSeen = false
  private malformed: string | null = null
  /** Set when the list outgrew its limit: the rest of the block is read only to keep the table in step. */
  private overflow: HpackError | null = null
  private overflowReported = false
  /** Octets of a representation split across fragments, copied, until `need` octets of it are here. */
  private held: Buffer[] = []
  private heldLength = 0
  private need = 0

  // Cursor of the representation being read.
  private pos = 0
  private nameHolder = ''
  /** Whether the last string read was stepped over (past an overflow) rather than kept in `nameHolder`. */
  private skipped = false

  constructor (options: HpackDecoderOptions) {
    this.maxHeaderListSize = options.maxHeaderListSize
    this.maxStringLength = options.maxStringLength ?? options.maxHeaderListSize
    this.settingsLimit = options.maxTableSize ?? DEFAULT_TABLE_SIZE
    // The peer's encoder starts at the protocol's initial size and may grow only by an update.
    this.table = new DynamicTable(Math.min(this.settingsLimit, DEFAULT_TABLE_SIZE))
  }

  /** Octets the dynamic table holds now (section 4.1). */
  get tableSize (): number { return this.table.size }

  /** Entries of the dynamic table, newest first, as [name, value]. */
  tableEntries (): Array<[string, string]> { return this.table.entries() }

  /**
   * Applies a SETTINGS_HEADER_TABLE_SIZE the peer acknowledged. When it is below the table's
   * current maximum, the peer's next block must begin with a table size update within it (section 4.2).
   */
  setMaxTableSize (limit: number): void {
    if (limit < this.table.maxSize) this.requiredUpdate = this.requiredUpdate === -1 ? limit : Math.min(this.requiredUpdate, limit)
    this.settingsLimit = limit
  }

  /**
   * Decodes a whole block, given as one buffer or as its fragments in order. A list past its
   * limit throws HEADER_LIST_TOO_LARGE after the whole block was read, so the next block decodes.
   */
  decode (block: Uint8Array | readonly Uint8Array[]): string[] {
    const fragments = block instanceof Uint8Array ? [block] : block.length === 0 ? [new Uint8Array(0)] : block
    let fields: string[] | null = null
    let overflow: HpackError | null = null
    for (let i = 0; i < fragments.length; i++) {
      const last = i === fragments.length - 1
      try {
        fields = this.decodeFragment(fragments[i]!, last)
      } catch (err) {
        if (last || !(err instanceof HpackError) || err.problem !== 'HEADER_LIST_TOO_LARGE') throw err
        overflow = err
      }
    }
    if (overflow !== null) throw overflow
    return fields!
  }

  /**
   * Feeds the next fragment of the block (a HEADERS or CONTINUATION payload, padding removed).
   * Returns the decoded list after the last fragment (`endOfBlock`), null before. The fragment is
   * not kept: the few octets of a representation it splits are copied.
   *
   * A header list past `maxHeaderListSize` throws HEADER_LIST_TOO_LARGE (`streamOnly`) from the
   * fragment where it shows, once. The rest of that block must still be fed: it is read without
   * keeping any field, only what the dynamic table needs, and its fragments return null.
   */
  decodeFragment (fragment: Uint8Array, endOfBlock: boolean): string[] | null {
    if (this.failed !== null) throw new HpackError('DECODER_FAILED', `the decoder failed earlier (${this.failed.problem}); the connection must end`)
    try {
      let input = Buffer.isBuffer(fragment) ? fragment : Buffer.from(fragment.buffer, fragment.byteOffset, fragment.byteLength)
      if (this.heldLength > 0) {
        this.held.push(Buffer.from(fragment))
        this.heldLength += fragment.length
        if (this.heldLength < this.need && !endOfBlock) return null
        input = Buffer.concat(this.held, this.heldLength)
        this.held = []
        this.heldLength = 0
      }
      const stop = this.decodeFields(input, input.length)
      if (stop < input.length) {
        if (endOfBlock) throw new HpackError('TRUNCATED', 'the header block ends inside a field representation')
        this.held.push(Buffer.from(input.subarray(stop)))
        this.heldLength = input.length - stop
        this.need -= stop
      }
      if (this.overflow !== null) return this.discarded(endOfBlock)
      return endOfBlock ? this.finishBlock() : null
    } catch (err) {
      // The overflow notice leaves the block open, to be read to its end.
      if (err === this.overflow && !endOfBlock) throw err
      this.resetBlock()
      if (err instanceof HpackError && !err.streamOnly) this.failed = err
      throw err
    }
  }

  /** Ends a fragment of a block past its size limit: reports the overflow once, then nothing. */
  private discarded (endOfBlock: boolean): null {
    const overflow = this.overflow!
    const report = !this.overflowReported
    this.overflowReported = true
    if (endOfBlock) {
      if (this.requiredUpdate !== -1) throw this.missingUpdate()
      this.resetBlock()
    }
    if (report) throw overflow
    return null
  }

  private finishBlock (): string[] {
    if (this.requiredUpdate !== -1) throw this.missingUpdate()
    const fields = this.fields
    const malformed = this.malformed
    this.resetBlock()
    if (malformed !== null) throw new HpackError('MALFORMED_FIELD', `the header block holds ${malformed} (RFC 9113 section 8.2.1)`)
    return fields
  }

  private resetBlock (): void {
    this.fields = []
    this.listSize = 0
    this.fieldSeen = false
    this.malformed = null
    this.overflow = null
    this.overflowReported = false
    this.held = []
    this.heldLength = 0
  }

  private missingUpdate (): HpackError {
    return new HpackError('TABLE_SIZE_UPDATE', `the block does not begin with the table size update to at most ${this.requiredUpdate} that the lowered SETTINGS_HEADER_TABLE_SIZE requires (RFC 7541 section 4.2)`)
  }

  /** Decodes the complete representations of `input[0, end)`; returns where an incomplete one starts, or `end`. */
  private decodeFields (input: Buffer, end: number): number {
    let start = 0
    while (start < end) {
      this.pos = start
      const first = input[start]!
      let complete: boolean
      if (first >= 0x80) complete = this.indexed(input, end)
      else if (first >= 0x40) complete = this.literal(input, end, 6, true)
      else if (first >= 0x20) complete = this.sizeUpdate(input, end)
      else complete = this.literal(input, end, 4, false)
      if (!complete) return start
      start = this.pos
    }
    return end
  }

  /** Reads an integer with an `prefixBits`-bit prefix at `pos` (section 5.1), or INCOMPLETE. */
  private readInteger (input: Uint8Array, end: number, prefixBits: number): number {
    const mask = (1 << prefixBits) - 1
    let value = input[this.pos++]! & mask
    if (value < mask) return value
    let shift = 0
    for (let octets = 1; ; octets++) {
      if (this.pos >= end) { this.need = end + 1; return INCOMPLETE }
      const octet = input[this.pos++]!
      value += (octet & 0x7f) * 2 ** shift
      shift += 7
      if (value > MAX_INTEGER) throw new HpackError('INTEGER_OVERFLOW', `an integer past ${MAX_INTEGER}`)
      if (octet < 0x80) return value
      if (octets === MAX_CONTINUATION_OCTETS) throw new HpackError('INTEGER_OVERFLOW', `an integer longer than ${MAX_CONTINUATION_OCTETS} continuation octets`)
    }
  }

  private startField (): void {
    if (this.requiredUpdate !== -1) throw this.missingUpdate()
    this.fieldSeen = true
  }

  private indexed (input: Uint8Array, end: number): boolean {
    const index = this.readInteger(input, end, 7)
    if (index === INCOMPLETE) return false
    this.startField()
    if (index === 0) throw new HpackError('BAD_INDEX', 'index 0 in an indexed field (RFC 7541 section 6.1)')
    if (index <= STATIC_LENGTH) {
      const entry = STATIC_TABLE[index - 1]!
      this.emit(entry[0], entry[1])
      return true
    }
    const at = index - STATIC_LENGTH - 1
    if (at >= this.table.length) throw new HpackError('BAD_INDEX', `index ${index} past the ${STATIC_LENGTH + this.table.length} entries of the tables`)
    const name = this.table.nameAt(at)
    this.checkName(name)
    this.emit(name, this.table.valueAt(at))
    return true
  }

  private literal (input: Buffer, end: number, prefixBits: number, indexing: boolean): boolean {
    const nameIndex = this.readInteger(input, end, prefixBits)
    if (nameIndex === INCOMPLETE) return false
    this.startField()
    let name: string
    let nameSkipped = false
    if (nameIndex === 0) {
      if (!this.readString(input, end, 0, true, indexing)) return false
      name = this.nameHolder
      nameSkipped = this.skipped
    } else if (nameIndex <= STATIC_LENGTH) {
      name = STATIC_TABLE[nameIndex - 1]![0]
    } else {
      const at = nameIndex - STATIC_LENGTH - 1
      if (at >= this.table.length) throw new HpackError('BAD_INDEX', `name index ${nameIndex} past the ${STATIC_LENGTH + this.table.length} entries of the tables`)
      name = this.table.nameAt(at)
      this.checkName(name)
    }
    // A skipped name is not known: stepping over the value is all that is left to do.
    if (!this.readString(input, end, nameSkipped ? this.table.maxSize : name.length, false, indexing && !nameSkipped)) return false
    const value = this.nameHolder
    if (nameSkipped || this.skipped) {
      // Skipped, past an overflow, because the entry could not fit the table (or was not to be
      // indexed): inserting it would have emptied the table.
      if (indexing) this.table.clear()
      return true
    }
    if (indexing) this.table.add(name, value)
    this.emit(name, value)
    return true
  }

  private sizeUpdate (input: Uint8Array, end: number): boolean {
    const size = this.readInteger(input, end, 5)
    if (size === INCOMPLETE) return false
    if (this.fieldSeen) throw new HpackError('TABLE_SIZE_UPDATE', 'a table size update after the first field of the block (RFC 7541 section 4.2)')
    if (size > this.settingsLimit) throw new HpackError('TABLE_SIZE_UPDATE', `a table size update to ${size}, past the SETTINGS_HEADER_TABLE_SIZE of ${this.settingsLimit}`)
    if (this.requiredUpdate !== -1) {
      if (size > this.requiredUpdate) throw this.missingUpdate()
      this.requiredUpdate = -1
    }
    this.table.resize(size)
    return true
  }

  /**
   * Reads a string literal at `pos` (section 5.2) into `nameHolder`; false when the fragment ends
   * first. `nameLength` is the length of the field's name when this is its value, for the list
   * size. Past an overflow a string is only stepped over (`skipped` is set) unless the
   * dynamic table needs it: a name or value of a field to be indexed that can fit the table.
   */
  private readString (input: Buffer, end: number, nameLength: number, isName: boolean, indexing: boolean): boolean {
    if (this.pos >= end) { this.need = end + 1; return false }
    const huffman = input[this.pos]! >= 0x80
    const length = this.readInteger(input, end, 7)
    if (length === INCOMPLETE) return false
    const least = huffman ? Math.floor(length * 8 / MIN_HUFFMAN_BITS_PER_OCTET) : length
    this.checkLength(least, nameLength, isName)
    const stringEnd = this.pos + length
    if (stringEnd > end) { this.need = stringEnd; return false }
    const start = this.pos
    this.pos = stringEnd
    this.skipped = this.overflow !== null && !(indexing && nameLength + least + ENTRY_OVERHEAD <= this.table.maxSize)
    if (this.skipped) return true
    if (!huffman) {
      this.checkOctets(input, start, stringEnd, isName)
      this.nameHolder = input.toString('latin1', start, stringEnd)
      return true
    }
    const room = huffmanMaxDecodedLength(length)
    if (this.scratch.length < room) this.scratch = Buffer.allocUnsafe(Math.max(room, this.scratch.length * 2))
    const decoded = huffmanDecode(input, start, stringEnd, this.scratch)
    if (decoded < 0) throw new HpackError('BAD_HUFFMAN', 'a Huffman string with EOS, or padded with more than 7 bits or not with ones (RFC 7541 section 5.2)')
    this.checkLength(decoded, nameLength, isName)
    this.checkOctets(this.scratch, 0, decoded, isName)
    this.nameHolder = this.scratch.toString('latin1', 0, decoded)
    return true
  }

  private checkLength (length: number, nameLength: number, isName: boolean): void {
    if (length > this.maxStringLength) throw new HpackError('STRING_TOO_LONG', `a ${isName ? 'name' : 'value'} of ${length} octets or more, past the limit of ${this.maxStringLength}`)
    if (this.overflow !== null) return
    const size = this.listSize + (isName ? length : nameLength + length) + ENTRY_OVERHEAD
    if (size > this.maxHeaderListSize) this.overflowAt(size, ' or more')
  }

  /** Notes that the list outgrew its limit and stops keeping fields; the notice is thrown at the fragment's end. */
  private overflowAt (size: number, bound: string): void {
    this.overflow = new HpackError('HEADER_LIST_TOO_LARGE', `the header list grows to ${size} octets${bound}, past the limit of ${this.maxHeaderListSize} (RFC 9113 section 6.5.2)`)
    this.fields = []
  }

  private checkOctets (bytes: Uint8Array, start: number, end: number, isName: boolean): void {
    if (this.malformed !== null) return
    this.malformed = isName ? nameProblem(bytes, start, end) : valueProblem(bytes, start, end)
  }

  private checkName (name: string): void {
    if (this.malformed === null) this.malformed = nameStringProblem(name)
  }

  private emit (name: string, value: string): void {
    if (this.overflow !== null) return
    const size = this.listSize + name.length + value.length + ENTRY_OVERHEAD
    if (size > this.maxHeaderListSize) return this.overflowAt(size, '')
    this.listSize = size
    this.fields.push(name, value)
  }
}
