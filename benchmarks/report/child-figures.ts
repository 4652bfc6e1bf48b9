/**
 * What the suites that run each client in a process of its own share: starting one such process
 * and reading the figures it prints, and reading a count from the command line.
 * @module
 */

import { spawn } from 'node:child_process'
import { once } from 'node:events'

/** Runs `node script ...args` and parses the JSON it prints; rejects naming `what` when it fails. */
export async function childFigures<T> (script: string, args: readonly string[], what: string): Promise<T> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout!.on('data', (chunk: Buffer) => { out += chunk.toString() })
  const [code] = await once(child, 'exit') as [number | null]
  if (code !== 0) throw new Error(`${what} exited with code ${String(code)}`)
  return JSON.parse(out) as T
}

/** A `--name=N` option's value: a positive integer, or `fallback` when absent; a TypeError names a bad one. */
export function positiveInteger (value: string | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new TypeError(`--${name} must be a positive integer, got ${value}`)
  return n
}
