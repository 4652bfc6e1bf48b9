/**
 * Running a real server binary for integration tests: find it (failing loudly when it is missing,
 * never skipping), pick a free loopback port, start it, wait until it accepts connections, stop it.
 */

import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'

/** A temporary directory under the OS temp dir. */
export interface TempDir {
  dir: string
  /** Deletes the directory and everything in it. */
  remove: () => Promise<void>
}

/** A temporary directory under the OS temp dir; `remove` deletes it. */
export async function tempDir (prefix: string): Promise<TempDir> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix))
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) }
}

function tryConnect (port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port })
    socket.once('connect', () => { socket.destroy(); resolve(true) })
    socket.once('error', () => { socket.destroy(); resolve(false) })
  })
}

/** A started child server. */
export interface ChildServer {
  child: ChildProcess
  port: number
  /** Everything the process wrote to stdout and stderr so far (for failure messages). */
  output: () => string
  /** Stops the process (SIGTERM, then SIGKILL if it lingers) and waits for it to exit. */
  stop: () => Promise<void>
}

/** How long a helper server gets to start listening before its start fails. */
export const START_TIMEOUT_MS = 15_000
const STOP_TIMEOUT_MS = 5_000
const POLL_MS = 25

/**
 * Spawns `binary args` and resolves once `port` on 127.0.0.1 accepts connections.
 * Rejects with the process output if it exits first or does not listen within `startTimeoutMs`
 * (the process is then killed).
 */
export async function startChildServer (binary: string, args: readonly string[], port: number, cwd: string, startTimeoutMs = START_TIMEOUT_MS): Promise<ChildServer> {
  const child = spawn(binary, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once('exit', () => resolve())
  })
  let gone = false
  void exited.then(() => { gone = true })
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve))

  const stop = async (): Promise<void> => {
    // A process that failed to spawn has no pid and never emits 'exit'.
    if (gone || child.pid === undefined) return
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
    await exited
    clearTimeout(timer)
  }

  const deadline = Date.now() + startTimeoutMs
  for (;;) {
    const failure = await Promise.race([spawnError, new Promise<null>((resolve) => setTimeout(() => resolve(null), POLL_MS))])
    if (failure !== null) {
      await stop()
      throw new Error(`${binary} could not be started: ${failure.message}`)
    }
    if (gone) throw new Error(`${binary} exited before listening on 127.0.0.1:${port}:\n${output}`)
    if (await tryConnect(port)) break
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`${binary} did not listen on 127.0.0.1:${port} within ${startTimeoutMs} ms:\n${output}`)
    }
  }
  return { child, port, output: () => output, stop }
}

/**
 * {@link startChildServer} with `tmp` as the working directory, which goes with the server: it is
 * removed when the start fails and when the returned server is stopped.
 */
export async function startChildServerIn (tmp: TempDir, binary: string, args: readonly string[], port: number): Promise<ChildServer> {
  let server: ChildServer
  try {
    server = await startChildServer(binary, args, port, tmp.dir)
  } catch (err) {
    await tmp.remove()
    throw err
  }
  return {
    ...server,
    stop: async () => {
      await server.stop()
      await tmp.remove()
    }
  }
}
