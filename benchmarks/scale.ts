/**
 * Scale benchmark (`npm run bench -- scale`): what conduit costs per idle keep-alive connection,
 * per queued request, per origin and per HTTP/2 stream, against undici. One origin process
 * (`origins/scale-origin.ts`) serves every scenario; each scenario runs each library in a fresh
 * client process (`clients/scale-client.ts`, with `--expose-gc`), `--repeats` times, alternating
 * which goes first, and the report gives medians and conduit ÷ undici ratios (median of the
 * per-repeat ratios, with their spread).
 *
 * Options: `--repeats=N` (default 3), `--only=idle,queued,origins,h2`, `--connections=N` (idle,
 * default 1000), `--queued=N` (default 10000), `--origins=N` (default 100000), `--streams=N`
 * (default 1000), `--json`.
 * @module
 */

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import type { ScaleFigures } from './clients/scale-client.js'
import { median } from './report/stats.js'

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url))

const LIBRARIES = ['conduit', 'undici'] as const
type Library = typeof LIBRARIES[number]

/** The scenarios, in the order they run, each with its default size and what a unit is. */
const SCENARIOS = [
  { name: 'idle', option: 'connections', size: 1000, unit: 'idle keep-alive connection' },
  { name: 'queued', option: 'queued', size: 10_000, unit: 'queued request (connections: 10)' },
  { name: 'origins', option: 'origins', size: 100_000, unit: 'origin through one Agent (retained after use)' },
  { name: 'h2', option: 'streams', size: 1000, unit: 'open HTTP/2 stream on one session' }
] as const

/** The figures compared, each a field of ScaleFigures. */
const MEASURES = [
  { field: 'heapPerUnit', label: 'heap B', digits: 0 },
  { field: 'externalPerUnit', label: 'external B', digits: 0 },
  { field: 'rssPerUnit', label: 'RSS B', digits: 0 },
  { field: 'cpuUsPerUnit', label: 'CPU µs', digits: 1 }
] as const

interface ScenarioResult { name: string, unit: string, size: number, runs: Record<Library, ScaleFigures[]> }

async function clientRun (lib: Library, scenario: string, size: number, originJson: string): Promise<ScaleFigures> {
  const child = spawn(process.execPath, ['--expose-gc', '--no-flush-bytecode', here('./clients/scale-client.js'), lib, scenario, String(size), originJson], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout!.on('data', (chunk: Buffer) => { out += chunk.toString() })
  const [code] = await once(child, 'exit') as [number | null]
  if (code !== 0) throw new Error(`scale client ${lib} ${scenario} exited with code ${String(code)}`)
  const figures = JSON.parse(out) as ScaleFigures
  if (figures.completed !== size) throw new Error(`scale client ${lib} ${scenario}: ${figures.completed} of ${size} requests completed`)
  return figures
}

/** `conduit ÷ undici` for one measure: the median of the per-repeat ratios and their range. */
function ratio (result: ScenarioResult, field: typeof MEASURES[number]['field']): string {
  const ratios = result.runs.conduit.map((figures, i) => figures[field] / result.runs.undici[i]![field])
  const finite = ratios.filter((r) => Number.isFinite(r))
  if (finite.length === 0) return 'n/a'
  return `${median(finite).toFixed(2)}x (${Math.min(...finite).toFixed(2)}–${Math.max(...finite).toFixed(2)})`
}

function format (result: ScenarioResult): string {
  const lines = [`scale ${result.name}: per ${result.unit}, ${result.size} units, median of ${result.runs.conduit.length} fresh process(es) each`]
  for (const measure of MEASURES) {
    const c = median(result.runs.conduit.map((f) => f[measure.field])).toFixed(measure.digits)
    const u = median(result.runs.undici.map((f) => f[measure.field])).toFixed(measure.digits)
    lines.push(`  ${measure.label.padEnd(11)} conduit ${c.padStart(9)}  undici ${u.padStart(9)}  conduit ÷ undici ${ratio(result, measure.field)}`)
  }
  const sockets = result.runs.conduit[0]?.originSockets
  if (sockets !== undefined) lines.push(`  origin counted ${sockets} (conduit) and ${String(result.runs.undici[0]?.originSockets)} (undici) open connections while idle`)
  return lines.join('\n')
}

function positiveInteger (name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new TypeError(`--${name} must be a positive integer, got ${value}`)
  return n
}

async function main (): Promise<void> {
  const { values } = parseArgs({
    options: {
      repeats: { type: 'string' },
      only: { type: 'string' },
      connections: { type: 'string' },
      queued: { type: 'string' },
      origins: { type: 'string' },
      streams: { type: 'string' },
      json: { type: 'boolean' }
    }
  })
  const repeats = positiveInteger('repeats', values.repeats, 3)
  const only = values.only?.split(',').map((s) => s.trim())
  const unknown = only?.filter((name) => !SCENARIOS.some((s) => s.name === name)) ?? []
  if (unknown.length > 0) throw new TypeError(`--only: unknown scenario ${unknown.join(', ')} (idle, queued, origins, h2)`)
  const origin = spawn(process.execPath, [here('./origins/scale-origin.js')], { stdio: ['pipe', 'pipe', 'inherit'] })
  try {
    const [data] = await once(origin.stdout!, 'data') as [Buffer]
    const originJson = data.toString().trim()
    const results: ScenarioResult[] = []
    for (const scenario of SCENARIOS) {
      if (only !== undefined && !only.includes(scenario.name)) continue
      const size = positiveInteger(scenario.option, values[scenario.option], scenario.size)
      const result: ScenarioResult = { name: scenario.name, unit: scenario.unit, size, runs: { conduit: [], undici: [] } }
      for (let repeat = 0; repeat < repeats; repeat++) {
        // Alternate who goes first, so neither always meets the origin in the same state.
        const order = repeat % 2 === 0 ? LIBRARIES : [...LIBRARIES].reverse()
        for (const lib of order) result.runs[lib].push(await clientRun(lib, scenario.name, size, originJson))
        process.stderr.write(`  scale ${scenario.name}: repeat ${repeat + 1}/${repeats} done\n`)
      }
      results.push(result)
      if (values.json !== true) process.stdout.write(format(result) + '\n')
    }
    if (values.json === true) process.stdout.write(JSON.stringify(results, null, 2) + '\n')
  } finally {
    origin.stdin!.end()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
