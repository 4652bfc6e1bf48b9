/**
 * Turns the transport benchmark's rounds into tables: medians per client, and conduit's ratios
 * against its peers computed round by round (rounds are interleaved, so each pair of samples
 * saw the same machine load) and summarised by their median.
 * @module
 */

import type { ClientSamples, ScenarioResult } from './transport.js'

/** A comparison printed under each table: `subject` against `peer`. */
export interface Comparison {
  subject: string
  peer: string
}

/** The comparisons the benchmark exists for. */
export const COMPARISONS: readonly Comparison[] = [
  { subject: 'conduit-request', peer: 'undici-request' },
  { subject: 'conduit-request', peer: 'node-http' },
  { subject: 'conduit-dispatch', peer: 'undici-dispatch' },
  { subject: 'conduit-composed', peer: 'undici-composed' }
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
}

/** Summary of one scenario. */
export interface ScenarioSummary {
  name: string
  title: string
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

/** Median of a non-empty list. */
export function median (values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

function pairedMedian (a: readonly number[], b: readonly number[]): number {
  return median(a.map((value, i) => value / b[i]!))
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
    ratios.push({ ...c, throughput: pairedMedian(subject.reqPerSec, peer.reqPerSec), cpu: pairedMedian(subject.cpuUsPerReq, peer.cpuUsPerReq) })
  }
  return { name: scenario.name, title: scenario.title, memory: result.memory, requests: result.requests, rounds: result.rounds, runs: 1, concurrency: scenario.concurrency, clients, ratios }
}

function label (summary: ScenarioSummary, id: string): string {
  return summary.clients.find((c) => c.id === id)?.label ?? id
}

/** Formats one scenario as a text table. */
export function formatSummary (summary: ScenarioSummary): string {
  const lines = [
    `${summary.title}${summary.memory ? ' (in-memory sockets)' : ''}: ${summary.requests} requests per round, ${summary.concurrency} in flight over ${summary.concurrency} connections, median of ${summary.runs > 1 ? `${summary.runs} runs of ${summary.rounds} rounds each` : `${summary.rounds} rounds`}`,
    `  ${'client'.padEnd(18)}${'req/s'.padStart(10)}${'MB/s'.padStart(10)}${'CPU µs/req'.padStart(13)}`
  ]
  for (const c of summary.clients) {
    lines.push(`  ${c.label.padEnd(18)}${c.reqPerSec.toFixed(0).padStart(10)}${c.mbPerSec.toFixed(1).padStart(10)}${c.cpuUsPerReq.toFixed(1).padStart(13)}`)
  }
  for (const r of summary.ratios) {
    lines.push(`  ${`${label(summary, r.subject)} / ${label(summary, r.peer)}:`.padEnd(37)} req/s ${r.throughput.toFixed(2)}x   CPU/req ${r.cpu.toFixed(2)}x`)
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
        cpu: median(same.map((s) => pick(s.ratios, j).cpu))
      }))
    }
  })
}

/** Formats every scenario, one table each. */
export function formatTransportResults (results: readonly ScenarioResult[]): string {
  return results.map((r) => formatSummary(summarize(r))).join('\n\n')
}
