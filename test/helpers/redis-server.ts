/**
 * A real `redis-server` for tests: started on a free loopback port with persistence off, in its
 * own temp dir; `stop()` kills it (as a crash would) and `start()` brings it back on the same port.
 * Fails with a clear message when the binary is missing; tests never skip for it.
 */

import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { freePort } from './free-port.js'
import { requireTool } from './test-tools.js'

/**
 * The `redis-server` binary: `REDIS_SERVER` if set, else the one the integration-test tool lookup
 * finds (Debian's `redis-server` package installs it in `/usr/bin`).
 */
export function redisServerBinary (): string {
  return process.env.REDIS_SERVER ?? requireTool('redis-server', 'redis-server')
}

/** A running test Redis. */
export interface TestRedis {
  readonly port: number
  /** `redis://127.0.0.1:PORT`. */
  readonly url: string
  /** Kills the server (SIGKILL) and waits until it is gone. */
  stop: () => Promise<void>
  /** Starts it again on the same port and waits until it answers. */
  start: () => Promise<void>
  /** Freezes the process (SIGSTOP): connections stay open, nothing is answered. */
  pause: () => void
  /** Thaws a paused process (SIGCONT). */
  resume: () => void
  /** Stops it and removes its temp dir. */
  close: () => Promise<void>
}

// A server that neither answers nor exits fails its start instead of hanging the test file.
const START_TIMEOUT_MS = 15_000

/**
 * Resolves once `PING` gets `+PONG` on the port, retrying with tiny pauses; rejects if `child`
 * exits first or does not answer within 15 s.
 */
export function waitForPong (port: number, child: ChildProcess, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = false
    const fail = (message: string): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      reject(new Error(`${message}:\n${output()}`))
    }
    const onExit = (code: number | null): void => fail(`redis-server exited (code ${code}) before answering on port ${port}`)
    const timer = setTimeout(() => {
      child.off('exit', onExit)
      fail(`redis-server did not answer on port ${port} within ${START_TIMEOUT_MS} ms`)
    }, START_TIMEOUT_MS)
    child.once('exit', onExit)
    child.once('error', (err) => fail(`redis-server could not be started: ${err.message}`))
    const attempt = (): void => {
      if (done) return
      const socket = net.connect(port, '127.0.0.1')
      let reply = ''
      socket.setEncoding('utf8')
      socket.on('connect', () => socket.write('PING\r\n'))
      socket.on('data', (data: string) => {
        reply += data
        if (!reply.includes('\r\n')) return
        socket.destroy()
        if (reply.startsWith('+PONG')) {
          done = true
          clearTimeout(timer)
          child.off('exit', onExit)
          resolve()
        } else {
          setTimeout(attempt, 10)
        }
      })
      socket.on('error', () => {
        socket.destroy()
        setTimeout(attempt, 10)
      })
    }
    attempt()
  })
}

/** Starts a private `redis-server` on 127.0.0.1. */
export async function startRedisServer (): Promise<TestRedis> {
  const binary = redisServerBinary()
  const dir = await mkdtemp(path.join(os.tmpdir(), 'conduit-redis-'))
  let port = await freePort()
  let child: ChildProcess | undefined
  // A server must not outlive a test process that ends early (failed assertion, uncaught error).
  const killOnExit = (): void => { child?.kill('SIGKILL') }
  process.once('exit', killOnExit)

  const start = async (): Promise<void> => {
    if (child !== undefined) return
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--logfile', '']
    const proc = child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    proc.stdout?.on('data', (chunk: Buffer) => { output = (output + chunk.toString()).slice(-4000) })
    proc.stderr?.on('data', (chunk: Buffer) => { output = (output + chunk.toString()).slice(-4000) })
    try {
      await waitForPong(port, proc, () => output)
    } catch (err) {
      child = undefined
      proc.kill('SIGKILL')
      throw err
    }
  }

  const stop = async (): Promise<void> => {
    const proc = child
    if (proc === undefined) return
    child = undefined
    if (proc.exitCode !== null || proc.signalCode !== null) return
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve())
      proc.kill('SIGKILL')
    })
  }

  // Another process may take the free port before the server binds it: try a few ports.
  for (let attempt = 1; ; attempt++) {
    try {
      await start()
      break
    } catch (err) {
      if (attempt === 3) {
        process.off('exit', killOnExit)
        await rm(dir, { recursive: true, force: true })
        throw err
      }
      port = await freePort()
    }
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    pause: () => { child?.kill('SIGSTOP') },
    resume: () => { child?.kill('SIGCONT') },
    close: async () => {
      child?.kill('SIGCONT')
      await stop()
      process.off('exit', killOnExit)
      await rm(dir, { recursive: true, force: true })
    }
  }
}
