/**
 * HPACK codec micro benchmark: encodes and decodes a typical request head and response head a
 * fixed number of times on one connection's encoder/decoder pair, so the dynamic table is warm as
 * on a busy connection, and once a round on fresh tables (a connection's first request). Prints
 * nanoseconds per header block and the block sizes. Every loop is bounded by the count given.
 *
 * Runs on its own: `node dist/benchmarks/hpack.js [iterations]` (default 100000).
 * @module
 */

import { fileURLToPath } from 'node:url'
import { HpackDecoder } from '../src/h2/hpack/decoder.js'
import { HpackEncoder } from '../src/h2/hpack/encoder.js'

/** A browser-like request head on a keep-alive connection. */
export const REQUEST_HEAD = [
  ':method', 'GET', ':scheme', 'https', ':authority', 'api.example.com', ':path', '/v1/items?page=2',
  'user-agent', 'conduit/1.0 (node)', 'accept', 'application/json', 'accept-encoding', 'gzip, deflate, br',
  'accept-language', 'en-GB,en;q=0.9', 'authorization', 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.signature'
]

/** A JSON API response head. */
export const RESPONSE_HEAD = [
  ':status', '200', 'content-type', 'application/json; charset=utf-8', 'content-length', '1024',
  'date', 'Wed, 02 Dec 2026 07:00:00 GMT', 'cache-control', 'private, max-age=0', 'vary', 'accept-encoding',
  'server', 'example', 'etag', '"5f2b-1a2b3c"', 'x-request-id', '0f8e7d6c-5b4a-3928-1706-f5e4d3c2b1a0'
]

/** One measured case. */
export interface HpackBenchRow {
  /** What was measured. */
  name: string
  /** Octets of the header block. */
  blockBytes: number
  /** Nanoseconds per block. */
  nsPerBlock: number
}

function time (iterations: number, work: () => void): number {
  const start = process.hrtime.bigint()
  for (let i = 0; i < iterations; i++) work()
  return Number(process.hrtime.bigint() - start) / iterations
}

function measureHead (label: string, head: readonly string[], iterations: number): HpackBenchRow[] {
  const encoder = new HpackEncoder()
  const decoder = new HpackDecoder({ maxHeaderListSize: 65536 })
  const first = encoder.encode(head)
  decoder.decode(first)
  const warm = encoder.encode(head)
  decoder.decode(warm)
  const freshBlock = new HpackEncoder().encode(head)
  // Warm tables: every iteration encodes/decodes the same head as the connection's next block.
  const encodeNs = time(iterations, () => encoder.encode(head))
  const warmDecoder = new HpackDecoder({ maxHeaderListSize: 65536 })
  warmDecoder.decode(freshBlock)
  const decodeNs = time(iterations, () => warmDecoder.decode(warm))
  // Fresh tables: a connection's first block, literals and Huffman strings throughout.
  const freshEncodeNs = time(iterations, () => new HpackEncoder().encode(head))
  const freshDecodeNs = time(iterations, () => new HpackDecoder({ maxHeaderListSize: 65536 }).decode(freshBlock))
  return [
    { name: `${label} encode, warm table`, blockBytes: warm.length, nsPerBlock: encodeNs },
    { name: `${label} decode, warm table`, blockBytes: warm.length, nsPerBlock: decodeNs },
    { name: `${label} encode, first block`, blockBytes: freshBlock.length, nsPerBlock: freshEncodeNs },
    { name: `${label} decode, first block`, blockBytes: freshBlock.length, nsPerBlock: freshDecodeNs }
  ]
}

/** Measures the request and response heads, `iterations` blocks per case. */
export function measureHpack (iterations: number): HpackBenchRow[] {
  return [...measureHead('request', REQUEST_HEAD, iterations), ...measureHead('response', RESPONSE_HEAD, iterations)]
}

/** The rows as a text table. */
export function formatHpack (rows: readonly HpackBenchRow[]): string {
  const lines = rows.map((row) => `${row.name.padEnd(32)} ${String(row.blockBytes).padStart(5)} B  ${row.nsPerBlock.toFixed(0).padStart(8)} ns/block`)
  return ['case                             block     time', ...lines].join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const iterations = Number(process.argv[2] ?? 100_000)
  if (!Number.isInteger(iterations) || iterations < 1) throw new TypeError(`iterations must be a positive integer, got ${process.argv[2]}`)
  console.log(formatHpack(measureHpack(iterations)))
}
