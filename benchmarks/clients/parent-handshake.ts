/**
 * The steady-state drivers' handshake with the process that measures them (`ready`, a line
 * back, the counted round, `done`, the end of input), by blocking reads and writes of file
 * descriptors 0 and 1 instead of `process.stdin` and `process.stdout`. Those are pipe-backed
 * sockets running through the same stream and socket code as the client's TCP connections: the
 * first line read from them, between warm-up and the counted round, showed that code a new
 * object shape, so it deoptimized and compiled again inside the counted round, in both
 * libraries alike, and the count carried compilation that no steady state has.
 * @module
 */

import { readSync, writeSync } from 'node:fs'

/** Writes `word` and a newline to standard output. */
export function tellParent (word: string): void {
  writeSync(1, `${word}\n`)
}

/** A cell to sleep on while standard input has nothing to read yet. */
const SLEEP_CELL = new Int32Array(new SharedArrayBuffer(4))

/** Blocks until a whole line, or the end of standard input, arrives. */
export function awaitParentLine (): void {
  const byte = Buffer.alloc(1)
  for (;;) {
    let read: number
    try {
      read = readSync(0, byte, 0, 1, null)
    } catch (err) {
      // A non-blocking descriptor with nothing in it yet: wait a little and read again.
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err
      Atomics.wait(SLEEP_CELL, 0, 0, 10)
      continue
    }
    if (read === 0 || byte[0] === 0x0a) return
  }
}
