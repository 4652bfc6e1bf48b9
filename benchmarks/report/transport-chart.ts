/**
 * The speed table as a picture: one bar per headline row (scenario and comparison), its length the
 * median ratio, a whisker for the spread (lowest to highest per-round ratio), and a line at 1x
 * (level with the peer). Plain SVG written by hand, so it needs no dependency and shows on any
 * repository page.
 * @module
 */

import type { ScenarioSummary } from './transport-report.js'

/** Which ratio a chart shows. */
export type ChartFigure = 'throughput' | 'cpu'

const ROW = 22
const LABEL_WIDTH = 520
const PLOT_WIDTH = 360
const TOP = 48

function escape (text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

/**
 * An SVG chart of every headline ratio of `summaries` for `figure` (`cpu`: CPU per request, below
 * 1x is cheaper; `throughput`: req/s, above 1x is faster), titled with `note` (say there what run
 * it shows, e.g. a smoke run).
 */
export function transportChart (summaries: readonly ScenarioSummary[], figure: ChartFigure, note: string): string {
  const rows = summaries.flatMap((s) => s.ratios.map((r) => ({
    label: `${s.label}: ${r.what}`,
    value: figure === 'cpu' ? r.cpu : r.throughput,
    spread: figure === 'cpu' ? r.cpuSpread : r.throughputSpread
  })))
  const max = Math.max(2, ...rows.map((r) => r.spread[1]))
  const x = (ratio: number): number => LABEL_WIDTH + Math.min(ratio, max) / max * PLOT_WIDTH
  const height = TOP + rows.length * ROW + 24
  const width = LABEL_WIDTH + PLOT_WIDTH + 80
  const title = figure === 'cpu' ? 'CPU per request, conduit ÷ peer (below 1x is cheaper)' : 'Requests per second, conduit ÷ peer (above 1x is faster)'
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="8" y="18" font-size="14" font-weight="bold">${escape(title)}</text>`,
    `<text x="8" y="36" fill="#555555">${escape(note)}; bar: median, whisker: lowest to highest per-round ratio</text>`
  ]
  rows.forEach((row, i) => {
    const y = TOP + i * ROW
    const good = figure === 'cpu' ? row.value <= 1 : row.value >= 1
    parts.push(
      `<text x="${LABEL_WIDTH - 8}" y="${y + 15}" text-anchor="end">${escape(row.label)}</text>`,
      `<rect x="${LABEL_WIDTH}" y="${y + 4}" width="${(x(row.value) - LABEL_WIDTH).toFixed(1)}" height="${ROW - 8}" fill="${good ? '#3b7dd8' : '#d8833b'}"/>`,
      `<line x1="${x(row.spread[0]).toFixed(1)}" x2="${x(row.spread[1]).toFixed(1)}" y1="${y + ROW / 2}" y2="${y + ROW / 2}" stroke="#222222"/>`,
      `<text x="${(x(row.spread[1]) + 6).toFixed(1)}" y="${y + 15}">${row.value.toFixed(2)}x</text>`
    )
  })
  parts.push(
    `<line x1="${x(1).toFixed(1)}" x2="${x(1).toFixed(1)}" y1="${TOP - 4}" y2="${TOP + rows.length * ROW}" stroke="#222222" stroke-dasharray="4 3"/>`,
    `<text x="${x(1).toFixed(1)}" y="${TOP + rows.length * ROW + 16}" text-anchor="middle">1x</text>`,
    '</svg>'
  )
  return parts.join('\n') + '\n'
}
