/**
 * Entry of `npm run bench`. Without a name it runs the suites of {@link DEFAULT_SUITES} (the
 * transport comparison and the HTTP/2 rows); with names it runs the suites of `suites.ts` they
 * select (`npm run bench -- cache fetch`, or `all`), each in its own process. `--smoke` runs each
 * selected suite with its tiny bounded arguments instead: a check that it still runs, not a
 * measurement.
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
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { runTransportBenchmark } from './transport.js'
import { combineRuns, formatHeadline, formatSummary, summarize } from './report/transport-report.js'
import type { ScenarioSummary } from './report/transport-report.js'
import { transportChart } from './report/transport-chart.js'
import { DEFAULT_SUITES, selectSuites } from './suites.js'
import type { Suite } from './suites.js'

const dir = fileURLToPath(new URL('.', import.meta.url))

function list (value: string | undefined): string[] | undefined {
  return value === undefined ? undefined : value.split(',').map((s) => s.trim()).filter((s) => s.length > 0)
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
  // A smoke run measures nothing, so it must not replace the charts the README shows.
  if (first === undefined || values.smoke === true) return
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

async function runSuite (suite: Suite & { file: string }, smoke: boolean): Promise<void> {
  process.stdout.write(`\n== ${suite.name}: ${suite.measures}\n`)
  const child = spawn(process.execPath, [dir + suite.file, ...(smoke ? suite.smokeArgs : [])], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: smoke ? { ...process.env, ...suite.smokeEnv } : process.env
  })
  const [code] = await once(child, 'exit') as [number | null]
  if (code !== 0) throw new Error(`${suite.file} exited with code ${String(code)}`)
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
      otel: { type: 'boolean' },
      smoke: { type: 'boolean' }
    }
  })
  const smoke = values.smoke === true
  // Client processes inherit the environment: with --otel each registers OpenTelemetry's undici instrumentation.
  if (values.otel === true) process.env.BENCH_OTEL = '1'
  const names = positionals.length === 0 ? DEFAULT_SUITES : positionals
  for (const name of names) {
    const suites = selectSuites(name)
    if (suites.length === 0) throw new TypeError(`no benchmark suite named ${JSON.stringify(name)} (the suites are listed in benchmarks/suites.ts)`)
    for (const suite of suites) {
      if (suite.file === undefined) await runTransport(smoke ? { ...values, ...transportSmokeValues(suite) } : values)
      else await runSuite({ ...suite, file: suite.file }, smoke)
    }
  }
}

/** The transport suite's smoke arguments (`--name=value`) as the parsed option values they stand for. */
function transportSmokeValues (suite: Suite): Record<string, string> {
  return Object.fromEntries(suite.smokeArgs.map((arg) => {
    const [key = '', value = ''] = arg.replace(/^--/, '').split('=')
    return [key, value]
  }))
}

main().catch((err: unknown) => {
  process.stderr.write(`${String((err as Error)?.stack ?? err)}\n`)
  process.exitCode = 1
})
