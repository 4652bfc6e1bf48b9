/**
 * Turns the transport benchmark's rounds into tables: medians per client, and conduit's ratios
 * against its peers computed round by round (rounds are interleaved, so each pair of samples
 * saw the same machine load) and summarised by their median.
 * @module
 */

import { CACHED_SUFFIX } from '../transport.js'
import { median } from './stats.js'
import type { ClientSamples, ScenarioResult } from '../transport.js'

/** A comparison printed under each table and as a headline row: `subject` against `peer`. */
export interface Comparison {
  /** Sample id of the measured side (a client id, or a client id plus the cached suffix). */
  subject: string
  /** Sample id of the side it is divided by. */
  peer: string
  /** What the headline row calls the comparison. */
  what: string
}

/** The comparisons the benchmark exists for. */
export const COMPARISONS: readonly Comparison[] = [
  { subject: 'conduit-request', peer: 'undici-request', what: "request(), 'data' events, conduit ÷ undici" },
  { subject: 'conduit-timings', peer: 'conduit-request', what: "request() with timings read ÷ request() without, conduit" },
  { subject: 'conduit-iter', peer: 'undici-iter', what: 'request(), for await, conduit ÷ undici' },
  { subject: 'conduit-text', peer: 'undici-text', what: 'request(), text(), conduit ÷ undici' },
  { subject: 'conduit-json', peer: 'undici-json', what: 'request(), json(), conduit ÷ undici' },
  { subject: 'conduit-dispatch', peer: 'undici-dispatch', what: 'dispatch(), conduit ÷ undici' },
  { subject: 'conduit-dispatch', peer: 'raw-socket', what: 'dispatch(), conduit ÷ raw net.Socket client' },
  { subject: 'conduit-fetch', peer: 'undici-fetch', what: 'fetch(), conduit ÷ undici' },
  { subject: 'conduit-composed', peer: 'undici-composed', what: 'compose(redirect(), decompress()) request(), conduit ÷ undici' },
  { subject: 'conduit-request', peer: 'node-http', what: "request(), 'data' events, conduit ÷ node:http" },
  { subject: 'conduit-request' + CACHED_SUFFIX, peer: 'conduit-request', what: 'conduit request(), cache hit ÷ no cache' },
  { subject: 'undici-request' + CACHED_SUFFIX, peer: 'undici-request', what: 'undici request(), cache hit ÷ no cache' }
]

/** Median figures of one client in one scenario. */
export interface ClientSummary {
  id: string
  label: string
  reqPerSec: number
  cpuUsPerReq: number
  /** Response plus request body megabytes per second. */
  mbPerSec: number
}

/** Median per-round ratios of one comparison. */
export interface RatioSummary extends Comparison {
  /** subject req/s divided by peer req/s: above 1 means conduit is faster. */
  throughput: number
  /** subject CPU per request divided by peer's: below 1 means conduit costs less. */
  cpu: number
  /** Lowest and highest per-round throughput ratio. */
  throughputSpread: [number, number]
  /** Lowest and highest per-round CPU ratio. */
  cpuSpread: [number, number]
}

/** Summary of one scenario. */
export interface ScenarioSummary {
  name: string
  title: string
  /** Short label for headline rows. */
  label: string
  /** True when measured over in-memory sockets. */
  memory: boolean
  requests: number
  rounds: number
  /** Whole runs (fresh processes each) the figures are the median of. */
  runs: number
  concurrency: number
  clients: ClientSummary[]
  ratios: RatioSummary[]
}

function pairedRatios (a: readonly number[], b: readonly number[]): number[] {
  return a.map((value, i) => value / b[i]!)
}

function spread (values: readonly number[]): [number, number] {
  return [Math.min(...values), Math.max(...values)]
}

/** Medians and ratios of one scenario. */
export function summarize (result: ScenarioResult): ScenarioSummary {
  const { scenario } = result
  const bytesPerRequest = scenario.requestBytes + scenario.responseBytes
  const byId = new Map<string, ClientSamples>(result.samples.map((s) => [s.client.id, s]))
  const clients = result.samples.map((s) => {
    const reqPerSec = median(s.reqPerSec)
    return { id: s.client.id, label: s.client.label, reqPerSec, cpuUsPerReq: median(s.cpuUsPerReq), mbPerSec: reqPerSec * bytesPerRequest / 1e6 }
  })
  const ratios: RatioSummary[] = []
  for (const c of COMPARISONS) {
    const subject = byId.get(c.subject)
    const peer = byId.get(c.peer)
    if (subject === undefined || peer === undefined) continue
    const throughput = pairedRatios(subject.reqPerSec, peer.reqPerSec)
    const cpu = pairedRatios(subject.cpuUsPerReq, peer.cpuUsPerReq)
    ratios.push({ ...c, throughput: median(throughput), cpu: median(cpu), throughputSpread: spread(throughput), cpuSpread: spread(cpu) })
  }
  return { name: scenario.name, title: scenario.title, label: scenario.label, memory: result.memory, requests: result.requests, rounds: result.rounds, runs: 1, concurrency: scenario.concurrency, clients, ratios }
}

function label (summary: ScenarioSummary, id: string): string {
  return summary.clients.find((c) => c.id === id)?.label ?? id
}

/** Formats one scenario as a text table. */
export function formatSummary (summary: ScenarioSummary): string {
  const lines = [
    `${summary.title}${summary.memory ? ' (in-memory sockets)' : ''}: ${summary.requests} requests per round, ${summary.concurrency} in flight over ${summary.concurrency} connections, median of ${summary.runs > 1 ? `${summary.runs} runs of ${summary.rounds} rounds each` : `${summary.rounds} rounds`}`,
    `  ${'client'.padEnd(24)}${'req/s'.padStart(10)}${'MB/s'.padStart(10)}${'CPU µs/req'.padStart(13)}`
  ]
  for (const c of summary.clients) {
    lines.push(`  ${c.label.padEnd(24)}${c.reqPerSec.toFixed(0).padStart(10)}${c.mbPerSec.toFixed(1).padStart(10)}${c.cpuUsPerReq.toFixed(1).padStart(13)}`)
  }
  for (const r of summary.ratios) {
    lines.push(`  ${`${label(summary, r.subject)} / ${label(summary, r.peer)}:`.padEnd(48)} req/s ${r.throughput.toFixed(2)}x   CPU/req ${r.cpu.toFixed(2)}x`)
  }
  return lines.join('\n')
}

/**
 * Combines whole runs (each from fresh processes) into one summary per scenario: every figure
 * and ratio is the median over the runs. Runs must cover the same scenarios and clients.
 */
export function combineRuns (runs: readonly (readonly ScenarioSummary[])[]): ScenarioSummary[] {
  const first = runs[0]
  if (first === undefined) throw new TypeError('combineRuns: no runs given')
  return first.map((summary, i) => {
    const same = runs.map((run) => run[i]!)
    const pick = <T>(list: readonly T[], j: number): T => list[j]!
    return {
      ...summary,
      runs: runs.length,
      clients: summary.clients.map((c, j) => ({
        ...c,
        reqPerSec: median(same.map((s) => pick(s.clients, j).reqPerSec)),
        cpuUsPerReq: median(same.map((s) => pick(s.clients, j).cpuUsPerReq)),
        mbPerSec: median(same.map((s) => pick(s.clients, j).mbPerSec))
      })),
      ratios: summary.ratios.map((r, j) => ({
        ...r,
        throughput: median(same.map((s) => pick(s.ratios, j).throughput)),
        cpu: median(same.map((s) => pick(s.ratios, j).cpu)),
        throughputSpread: spread(same.flatMap((s) => pick(s.ratios, j).throughputSpread)),
        cpuSpread: spread(same.flatMap((s) => pick(s.ratios, j).cpuSpread))
      }))
    }
  })
}

const ratio = (value: number): string => `${value.toFixed(2)}x`
const range = ([low, high]: [number, number]): string => `${low.toFixed(2)}–${high.toFixed(2)}`

/**
 * The headline: one row per scenario and comparison, each a median ratio with its spread (the
 * lowest and highest per-round ratio over every round of every run).
 */
export function formatHeadline (summaries: readonly ScenarioSummary[]): string {
  const first = summaries[0]
  if (first === undefined) return ''
  const over = first.runs > 1 ? `median of ${first.runs} runs, spread over their ${first.runs * first.rounds} rounds` : `median and spread of ${first.rounds} rounds`
  const lines = [
    `Ratios (${over}): req/s above 1x is faster, CPU/req below 1x is cheaper`,
    `  ${'scenario'.padEnd(21)}${'comparison'.padEnd(48)}${'req/s'.padEnd(20)}CPU/req`
  ]
  for (const summary of summaries) {
    for (const r of summary.ratios) {
      lines.push(`  ${summary.label.padEnd(21)}${r.what.padEnd(48)}${`${ratio(r.throughput)} (${range(r.throughputSpread)})`.padEnd(20)}${ratio(r.cpu)} (${range(r.cpuSpread)})`)
    }
  }
  return lines.join('\n')
}

/** Formats every scenario, one table each. */
export function formatTransportResults (results: readonly ScenarioResult[]): string {
  return results.map((r) => formatSummary(summarize(r))).join('\n\n')
}
