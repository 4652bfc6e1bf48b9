/**
 * The writer thread of a SqliteCacheStore: it owns a connection of its own and commits the
 * writes the store posts, every batch that arrived together in one transaction. Waiting for
 * another process's lock (up to the busy timeout) blocks this thread only, never the event
 * loop of the process that uses the cache. Started by `sqlite-writer-thread.ts`.
 * @module
 */

import { parentPort, workerData } from 'node:worker_threads'
import { loadDriver } from './sqlite-driver.js'
import type { SqliteConnection, SqliteDriverName } from './sqlite-driver.js'
import { SqliteWriter, configureConnection } from './sqlite-schema.js'
import type { WriteOperation } from './sqlite-schema.js'

/** What the store gives the thread when it starts it. */
export interface WriterThreadData {
  location: string
  driver: SqliteDriverName
  maxCount: number
  busyTimeoutMs: number
  /** Set to 1 (and notified) once the thread committed everything and closed its connection. */
  closed: Int32Array
}

/** A message from the store: writes to commit, or the end. */
export type ToWriter = { type: 'writes', writes: Array<WriteOperation & { seq: number }> } | { type: 'close' }

/** A message to the store: every write up to `seq` is committed, or failed with `error`. */
export type FromWriter =
  | { type: 'done', seq: number, error: string | null }
  | { type: 'unusable', error: string }

function open (data: WriterThreadData): { db: SqliteConnection, writer: SqliteWriter } {
  // The store's own thread already said node:sqlite is experimental (where it is); once is enough.
  const emitWarning = process.emitWarning
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type
    if (type === 'ExperimentalWarning' && String(warning).includes('SQLite')) return
    emitWarning.call(process, warning as string, ...(rest as []))
  }) as typeof process.emitWarning
  try {
    const { Database } = loadDriver('SqliteCacheStore', data.driver)
    const db = new Database(data.location)
    configureConnection(db, data.location, data.busyTimeoutMs)
    return { db, writer: new SqliteWriter(db, data.maxCount) }
  } finally {
    process.emitWarning = emitWarning
  }
}

const port = parentPort!
const data = workerData as WriterThreadData
let opened: { db: SqliteConnection, writer: SqliteWriter } | null = null
try {
  opened = open(data)
} catch (err) {
  port.postMessage({ type: 'unusable', error: (err as Error).message } satisfies FromWriter)
}

let queue: Array<WriteOperation & { seq: number }> = []
let closing = false
let scheduled = false

function commit (): void {
  scheduled = false
  if (queue.length > 0) {
    const batch = queue
    queue = []
    let error: string | null = null
    try {
      if (opened === null) throw new Error('the writer has no database connection')
      opened.writer.apply(batch)
    } catch (err) {
      error = (err as Error).message
    }
    port.postMessage({ type: 'done', seq: batch.at(-1)!.seq, error } satisfies FromWriter)
  }
  if (closing) {
    try {
      opened?.db.close()
    } finally {
      Atomics.store(data.closed, 0, 1)
      Atomics.notify(data.closed, 0)
      port.close()
    }
  }
}

port.on('message', (message: ToWriter) => {
  if (message.type === 'writes') queue.push(...message.writes)
  else closing = true
  // Messages that arrived together are all delivered before this runs: they make one batch.
  if (!scheduled) {
    scheduled = true
    setImmediate(commit)
  }
})
