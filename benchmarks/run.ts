/**
 * Entry of `npm run bench`. Without a name it runs the transport comparison and the HTTP/2 rows; with names it runs
 * those suites instead: `transport`, or any other benchmark file in this directory by the start
 * of its name (`npm run bench -- cache fetch`). A file counts as a suite when it runs itself as a
 * program (it compares `process.argv[1]` with its own URL); helpers such as servers and client
 * processes do not, and are left to the suite that starts them. Each suite runs in its own process.
 *
 * Transport options: `--runs=N` (whole runs, fresh processes each, medians of them), `--rounds=N`, `--scale=F`, `--only=small,medium,large,post,cache`,
 * `--clients=conduit-request,...`, `--cpu-prof=conduit-request,...`, `--cpu-prof-dir=DIR`, `--json`,
 * `--memory` (in-memory sockets instead of the server: the libraries' own CPU cost only),
 * `--origin=net|http` (the origin process: a minimal net server, the default, or node:http),
 * `--chart-dir=DIR` (where the SVG charts of the ratios go; benchmarks/results by default),
 * `--otel` (every client process traced by OpenTelemetry's undici instrumentation).
 * @module
 */

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { runTransportBenchmark } from './transport.js'
import { combineRuns, formatHeadline, formatSummary, summarize } from './transport-report.js'
import type { ScenarioSummary } from './transport-report.js'
import { transportChart } from './transport-chart.js'

const dir = fileURLToPath(new URL('.', import.meta.url))
const SELF_RUNNING = /process\.argv\[1\] === fileURLToPath\(import\.meta\.url\)/

function list (value: string | undefined): string[] | undefined {
  return value === undefined ? undefined : value.split(',').map((s) => s.trim()).filter((s) => s.length > 0)
}

/** Benchmark files (compiled) whose name starts with `name` and that run themselves. */
function suiteFiles (name: string): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.js') && file.startsWith(name) && file !== 'run.js' && !file.startsWith('transport'))
    .filter((file) => SELF_RUNNING.test(readFileSync(dir + file, 'utf8')))
    .sort()
}

async function runTransport (values: Record<string, string | boolean | undefined>): Promise<void> {
  const str = (key: string): string | undefined => typeof values[key] === 'string' ? values[key] : undefined
  const runs = str('runs') === undefined ? 1 : Number(str('runs'))
  if (!Number.isInteger(runs) || runs < 1) throw new TypeError(`--runs must be a positive integer, got ${String(str('runs'))}`)
  const all: ScenarioSummary[][] = []
  const raw: unknown[] = []
  for (let run = 1; run <= runs; run++) {
    const results = await runTransportBenchmark({
      rounds: str('rounds') === undefined ? undefined : Number(str('rounds')),
      scale: str('scale') === undefined ? undefined : Number(str('scale')),
      scenarios: list(str('only')),
      clients: list(str('clients')),
      cpuProf: list(str('cpu-prof')),
      cpuProfDir: str('cpu-prof-dir'),
      memory: values.memory === true,
      origin: str('origin') === undefined ? undefined : str('origin') as 'net' | 'http',
      onRound: (scenario, r) => process.stderr.write(`  run ${run}/${runs}, ${scenario.name}: round ${r} done\n`)
    })
    const summaries = results.map(summarize)
    all.push(summaries)
    raw.push(results)
    if (runs > 1 && values.json !== true) {
      process.stdout.write(`run ${run}/${runs}: ${formatHeadline(summaries)}\n\n`)
    }
  }
  const combined = combineRuns(all)
  writeCharts(combined, runs, values)
  if (values.json === true) process.stdout.write(JSON.stringify({ combined, runs: all, results: raw }, null, 2) + '\n')
  else process.stdout.write(combined.map(formatSummary).join('\n\n') + '\n\n' + formatHeadline(combined) + '\n')
}

/**
 * Writes the speed table as SVG charts (`--chart-dir`, `benchmarks/results` of the checkout by
 * default), one for CPU per request and one for req/s, each titled with what run it shows;
 * `--otel` runs write `transport-otel-*.svg` beside them.
 */
function writeCharts (summaries: ScenarioSummary[], runs: number, values: Record<string, string | boolean | undefined>): void {
  const outDir = typeof values['chart-dir'] === 'string' ? values['chart-dir'] : fileURLToPath(new URL('../../benchmarks/results/', import.meta.url))
  const first = summaries[0]
  if (first === undefined) return
  const kind = first.memory ? 'in-memory sockets' : 'loopback TCP'
  const traced = values.otel === true
  const note = `${new Date().toISOString().slice(0, 10)}, ${kind}${traced ? ', traced by OpenTelemetry' : ''}, median of ${runs} run(s) of ${first.rounds} round(s)${values.scale !== undefined ? `, scale ${String(values.scale)} (a smoke run, not a measurement)` : ''}`
  mkdirSync(outDir, { recursive: true })
  // A traced run gets charts of its own, so it never replaces the untraced ones the README shows.
  const prefix = traced ? 'transport-otel' : 'transport'
  for (const figure of ['cpu', 'throughput'] as const) {
    const file = join(outDir, `${prefix}-${figure}.svg`)
    writeFileSync(file, transportChart(summaries, figure, note))
    process.stderr.write(`chart written: ${file}\n`)
  }
}

async function runFile (file: string): Promise<void> {
  process.stdout.write(`\n== ${file}\n`)
  const child = spawn(process.execPath, [dir + file], { stdio: ['ignore', 'inherit', 'inherit'] })
  const [code] = await once(child, 'exit') as [number | null]
  if (code !== 0) throw new Error(`${file} exited with code ${String(code)}`)
}

async function main (): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      runs: { type: 'string' },
      rounds: { type: 'string' },
      scale: { type: 'string' },
      only: { type: 'string' },
      clients: { type: 'string' },
      'cpu-prof': { type: 'string' },
      'cpu-prof-dir': { type: 'string' },
      json: { type: 'boolean' },
      memory: { type: 'boolean' },
      origin: { type: 'string' },
      'chart-dir': { type: 'string' },
      otel: { type: 'boolean' }
    }
  })
  // Client processes inherit the environment: with --otel each registers OpenTelemetry's undici instrumentation.
  if (values.otel === true) process.env.BENCH_OTEL = '1'
  // The default run: the HTTP/1.1 transport sequence, then the HTTP/2 rows.
  const names = positionals.length === 0 ? ['transport', 'h2'] : positionals
  for (const name of names) {
    if (name === 'transport') {
      await runTransport(values)
      continue
    }
    const files = suiteFiles(name)
    if (files.length === 0) throw new TypeError(`no benchmark suite named ${JSON.stringify(name)} (no self-running file benchmarks/${name}*.ts)`)
    for (const file of files) await runFile(file)
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${String((err as Error)?.stack ?? err)}\n`)
  process.exitCode = 1
})
