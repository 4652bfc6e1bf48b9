/**
 * Counts the live objects of this process by kind from a V8 heap snapshot, so a test can say how
 * many objects something holds as a number that does not depend on timing, load or the JIT: the
 * snapshot runs a full collection first, and only what is still reachable is counted.
 */

import { Session } from 'node:inspector/promises'

/** Live objects by `type:name` (`object:BodyReadable`, `closure:onData`, ...). */
export type Census = Map<string, number>

/** Node types counted: plain objects (by constructor name) and closures (by function name). */
const COUNTED_TYPES = new Set(['object', 'closure'])

interface SnapshotShape {
  snapshot: { meta: { node_fields: string[], node_types: [string[], ...unknown[]] } }
  nodes: number[]
  strings: string[]
}

/** Takes a heap snapshot of this process and counts its objects and closures by name. */
export async function takeCensus (): Promise<Census> {
  const session = new Session()
  session.connect()
  const chunks: string[] = []
  session.on('HeapProfiler.addHeapSnapshotChunk', (message) => { chunks.push(message.params.chunk) })
  try {
    await session.post('HeapProfiler.takeHeapSnapshot', { reportProgress: false })
  } finally {
    session.disconnect()
  }
  const shape = JSON.parse(chunks.join('')) as SnapshotShape
  const fields = shape.snapshot.meta.node_fields
  const typeNames = shape.snapshot.meta.node_types[0]
  const width = fields.length
  const typeAt = fields.indexOf('type')
  const nameAt = fields.indexOf('name')
  const census: Census = new Map()
  for (let i = 0; i < shape.nodes.length; i += width) {
    const type = typeNames[shape.nodes[i + typeAt]!]!
    if (!COUNTED_TYPES.has(type)) continue
    const key = `${type}:${shape.strings[shape.nodes[i + nameAt]!]!}`
    census.set(key, (census.get(key) ?? 0) + 1)
  }
  return census
}

/** What `after` has more of than `before`, per kind (kinds that grew only), and the total growth. */
export function growth (before: Census, after: Census): { total: number, byKind: Map<string, number> } {
  const byKind = new Map<string, number>()
  let total = 0
  for (const [key, count] of after) {
    const grew = count - (before.get(key) ?? 0)
    if (grew <= 0) continue
    byKind.set(key, grew)
    total += grew
  }
  return { total, byKind }
}

/** The kinds that grew by at least `min`, largest first, for an assertion message. */
export function describeGrowth (byKind: Map<string, number>, min: number): string {
  return [...byKind].filter(([, n]) => n >= min).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} +${n}`).join(', ')
}
