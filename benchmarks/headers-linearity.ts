/**
 * Header value trimming must take time linear in the value's length: a value made of long runs
 * of blanks (the shape that makes a backtracking trim quadratic) is put through `new Headers`,
 * a `Request`'s headers, a `Response`'s headers and (conduit only) the HTTP/1 response head
 * parser, at a small and a large size. The figure is
 * the ratio time(large) / time(small) beside the size ratio: linear work gives about the size
 * ratio (16 for 64 KiB against 1 MiB), quadratic work its square. undici's classes run beside
 * conduit's as the reference. Every loop runs a fixed number of times.
 *
 * Runs on its own: `node dist/benchmarks/headers-linearity.js [smallKiB] [largeKiB]`,
 * or `npm run bench -- headers`.
 * @module
 */

import { fileURLToPath } from 'node:url'
import { undici } from '../test/helpers/undici-reference.js'
import { Headers } from '../src/fetch/headers.js'
import { Request } from '../src/fetch/request.js'
import { Response } from '../src/fetch/response.js'
import { parseHead } from '../src/h1/parse-head.js'

const ROUNDS = 7
/** Values put through per sample at the large size; the small size runs proportionally more, so every sample processes the same number of bytes. */
const LARGE_REPEATS = 4

/** A header value of `length` characters: visible ends around runs of tabs and spaces. */
function adversarialValue (length: number): string {
  const run = ' \t'.repeat(Math.max(1, Math.floor((length - 4) / 4)))
  return `${run}a${run}b${run}`.padEnd(length, '\t')
}

type Scenario = (value: string) => unknown

function scenarios (lib: { Headers: typeof Headers, Request: typeof Request, Response: typeof Response }): Record<string, Scenario> {
  return {
    'new Headers': (value) => new lib.Headers([['x-long', value]]),
    'Request headers': (value) => new lib.Request('http://127.0.0.1/', { headers: { 'x-long': value } }),
    'Response headers': (value) => new lib.Response(null, { headers: { 'x-long': value } })
  }
}

function medianMs (run: () => void, repeats: number): number {
  const samples: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint()
    for (let i = 0; i < repeats; i++) run()
    samples.push(Number(process.hrtime.bigint() - start) / 1e6 / repeats)
  }
  return samples.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!
}

/** One measured row: times at both sizes and their ratio. */
export interface LinearityRow {
  library: string
  scenario: string
  smallMs: number
  largeMs: number
  ratio: number
}

/** Measures every scenario of conduit and undici at `smallBytes` and `largeBytes`. */
export function measureLinearity (smallBytes: number, largeBytes: number): LinearityRow[] {
  const small = adversarialValue(smallBytes)
  const large = adversarialValue(largeBytes)
  const rows: LinearityRow[] = []
  const libraries = {
    conduit: {
      ...scenarios({ Headers, Request, Response }),
      // The HTTP/1 parser's own trimming of a value read from the wire (undici's parser is native code).
      'wire response head': (value: string) => parseHead(`HTTP/1.1 200 OK\r\nx-long: ${value}`, true)
    },
    undici: scenarios(undici as unknown as { Headers: typeof Headers, Request: typeof Request, Response: typeof Response })
  }
  for (const [library, table] of Object.entries(libraries)) {
    for (const [scenario, run] of Object.entries(table)) {
      run(small)
      run(large)
      const smallMs = medianMs(() => run(small), Math.ceil(LARGE_REPEATS * largeBytes / smallBytes))
      const largeMs = medianMs(() => run(large), LARGE_REPEATS)
      rows.push({ library, scenario, smallMs, largeMs, ratio: largeMs / smallMs })
    }
  }
  return rows
}

/** Prints the rows as a table with the size ratio that linear work would show. */
export function formatLinearity (rows: LinearityRow[], smallBytes: number, largeBytes: number): string {
  const lines = [`header value trimming, ${smallBytes / 1024} KiB vs ${largeBytes / 1024} KiB (size ratio ${(largeBytes / smallBytes).toFixed(0)}x; linear work shows about that, quadratic its square)`]
  for (const row of rows) {
    lines.push(`  ${row.library.padEnd(8)} ${row.scenario.padEnd(19)} ${row.smallMs.toFixed(3).padStart(9)} ms ${row.largeMs.toFixed(3).padStart(9)} ms  time ratio ${row.ratio.toFixed(1)}x`)
  }
  return lines.join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const smallKiB = Number(process.argv[2] ?? 64)
  const largeKiB = Number(process.argv[3] ?? 1024)
  if (!(smallKiB > 0 && largeKiB > smallKiB && largeKiB <= 1024)) {
    throw new TypeError(`sizes must satisfy 0 < small < large <= 1024 KiB, got ${process.argv[2]} and ${process.argv[3]}`)
  }
  const rows = measureLinearity(smallKiB * 1024, largeKiB * 1024)
  process.stdout.write(formatLinearity(rows, smallKiB * 1024, largeKiB * 1024) + '\n')
}
