/**
 * Per-thread CPU of one client in steady state: runs `instruction-driver.ts`, lets it warm up,
 * and reads `/proc/<pid>/task/<tid>/stat` and `status` of every thread of the driver just before
 * and just after the measured round (its closing full collection included). Prints, per request,
 * the CPU time (user and system) of the main thread and of V8's worker threads (parallel scavenge, concurrent
 * marking and sweeping, concurrent compilation), and how often each went to sleep (voluntary
 * context switches: a worker woken for a task, the main thread waiting for the socket). CPU
 * time depends on load; the split between threads and the wake-ups per request much less, and
 * they show background work that the client's own instruction count leaves out. Linux only.
 * The runtime measured is the one running this script; `BENCH_OTEL=1` registers the
 * OpenTelemetry instrumentation as in the driver.
 *
 * Usage: node thread-steady.js <conduit|undici> <mode> <scenario> <warmup> <requests> <origin>
 * @module
 */

import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const driver = fileURLToPath(new URL('./instruction-driver.js', import.meta.url))
const [library = 'conduit', mode = 'request', scenario = 'small', warmup = '5000', requests = '10000', origin = ''] = process.argv.slice(2)
const counted = Number(requests)
if (!Number.isInteger(counted) || counted < 1) throw new TypeError(`requests must be a positive integer, got ${requests}`)
if (!/^\d+$/.test(warmup) || warmup === '0') throw new TypeError(`warmup must be a positive integer, got ${warmup}`)

/** Clock ticks per second of `/proc` CPU times: 100 on every Linux build Node supports. */
const TICKS_PER_SECOND = 100

/** One thread's totals so far. */
interface ThreadSample { name: string, user: number, system: number, sleeps: number, preempted: number }

/** Every thread of process `pid`, by thread id. A thread that ended between two reads is skipped. */
function sampleThreads (pid: number): Map<string, ThreadSample> {
  const threads = new Map<string, ThreadSample>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8')
      // The name sits in parentheses and may hold spaces; the fields after it are space-separated.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      threads.set(tid, {
        name: tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
        user: Number(fields[11]),
        system: Number(fields[12]),
        sleeps: Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(status)?.[1] ?? 0),
        preempted: Number(/^nonvoluntary_ctxt_switches:\s*(\d+)/m.exec(status)?.[1] ?? 0)
      })
    } catch {}
  }
  return threads
}

/** After minus before, summed by thread name (Node 20's worker threads are all named `node`). */
function difference (before: Map<string, ThreadSample>, after: Map<string, ThreadSample>): Map<string, ThreadSample> {
  const byName = new Map<string, ThreadSample>()
  for (const [tid, end] of after) {
    const start = before.get(tid) ?? { name: end.name, user: 0, system: 0, sleeps: 0, preempted: 0 }
    const name = end.name === 'main' ? 'main' : `workers (${end.name})`
    const sum = byName.get(name) ?? { name, user: 0, system: 0, sleeps: 0, preempted: 0 }
    sum.user += end.user - start.user
    sum.system += end.system - start.system
    sum.sleeps += end.sleeps - start.sleeps
    sum.preempted += end.preempted - start.preempted
    byName.set(name, sum)
  }
  return byName
}

const child = spawn(process.execPath, ['--expose-gc', driver, library, mode, scenario, requests, origin, warmup], { stdio: ['pipe', 'pipe', 'inherit'] })
const pid = child.pid ?? 0
let before = new Map<string, ThreadSample>()
let round = new Map<string, ThreadSample>()

createInterface({ input: child.stdout }).on('line', (line) => {
  if (line === 'ready') {
    before = sampleThreads(pid)
    child.stdin.write('go\n')
  } else if (line === 'done') {
    round = difference(before, sampleThreads(pid))
    child.stdin.end()
  }
})

child.on('exit', (code) => {
  if (code !== 0 || round.size === 0) {
    console.error(`the driver failed (exit code ${String(code)})`)
    process.exitCode = 1
    return
  }
  const otel = process.env.BENCH_OTEL === '1' ? ', OpenTelemetry on' : ''
  console.log(`${library} ${mode} ${scenario} on Node ${process.versions.node}${otel}, ${counted} requests after ${warmup}, per request:`)
  for (const thread of round.values()) {
    const micros = (ticks: number): string => (ticks * 1e6 / TICKS_PER_SECOND / counted).toFixed(1)
    const per = (n: number): string => (n / counted).toFixed(3)
    console.log(`  ${thread.name}: CPU ${micros(thread.user)} µs user + ${micros(thread.system)} µs system, sleeps ${per(thread.sleeps)}, preempted ${per(thread.preempted)}`)
  }
})
