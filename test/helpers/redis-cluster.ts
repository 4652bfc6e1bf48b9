/**
 * A real Redis Cluster for tests: six `redis-server` processes on loopback ports (three primaries,
 * one replica each), each in its own temp dir with persistence off, joined with
 * `redis-cli --cluster create`. `close()` kills every process and removes the dirs, also when the
 * start failed half-way, and an exit hook kills what a crashed test process left running.
 */

import { execFile, spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { freePort } from './free-port.js'
import { redisServerBinary, waitForPong } from './redis-server.js'
import { requireTool } from './test-tools.js'

const run = promisify(execFile)

/** Longest wait for the cluster to agree on its slots (and after a failover, for the replica to take over). */
const STATE_TIMEOUT_MS = 30_000

/** One node of the test cluster. */
export interface ClusterNode {
  readonly port: number
  /** True once it was killed. */
  readonly killed: boolean
}

/** A running test cluster. */
export interface TestRedisCluster {
  readonly nodes: readonly ClusterNode[]
  /** `{ host, port }` of every node, the startup list for an ioredis `Cluster`. */
  readonly startupNodes: Array<{ host: string, port: number }>
  /** Runs `redis-cli -p port args...` and returns its output. */
  cli: (port: number, ...args: string[]) => Promise<string>
  /** Runs `redis-cli args...` (e.g. `--cluster reshard ...`) and returns its output. */
  cliTool: (...args: string[]) => Promise<string>
  /** The ports of the nodes that are currently primaries serving slots. */
  primaryPorts: () => Promise<number[]>
  /** Kills a node with SIGKILL, as a crash would. */
  kill: (port: number) => Promise<void>
  /** Resolves once every live node reports `cluster_state:ok`; rejects after 30 s. */
  waitHealthy: () => Promise<void>
  /** Kills every node and removes the temp dirs. */
  close: () => Promise<void>
}

function redisCli (): string {
  return process.env.REDIS_CLI ?? requireTool('redis-cli', 'redis-tools')
}

/**
 * Options of an ioredis `Cluster` that fails open like a store-made standalone client: no
 * offline queue, no retries past the first redirection chain.
 */
export const FAIL_FAST_CLUSTER_OPTIONS = {
  enableOfflineQueue: false,
  retryDelayOnFailover: 50,
  retryDelayOnClusterDown: 50,
  redisOptions: { connectTimeout: 2000, maxRetriesPerRequest: 0, disconnectTimeout: 100 }
}

/**
 * Starts a cluster of three primaries with a replica each (or, with `primaries` 1, a single node
 * serving every slot, which `redis-cli --cluster create` refuses to build); `nodeTimeoutMs` sets
 * how soon a dead primary is failed over.
 */
export async function startRedisCluster (nodeTimeoutMs = 2000, primaries: 1 | 3 = 3): Promise<TestRedisCluster> {
  const binary = redisServerBinary()
  const cliBinary = redisCli()
  const dir = await mkdtemp(path.join(os.tmpdir(), 'conduit-redis-cluster-'))
  const children = new Map<number, ChildProcess>()
  const killed = new Set<number>()
  const killAll = (): void => { for (const child of children.values()) child.kill('SIGKILL') }
  process.once('exit', killAll)

  const cli = async (port: number, ...args: string[]): Promise<string> =>
    (await run(cliBinary, ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: STATE_TIMEOUT_MS })).stdout

  const close = async (): Promise<void> => {
    await Promise.all([...children.values()].map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGKILL')
      })
    }))
    children.clear()
    process.off('exit', killAll)
    await rm(dir, { recursive: true, force: true })
  }

  const ports: number[] = []
  const waitHealthy = async (): Promise<void> => {
    const deadline = Date.now() + STATE_TIMEOUT_MS
    for (;;) {
      const live = ports.filter((port) => !killed.has(port))
      const states = await Promise.all(live.map(async (port) => await cli(port, 'CLUSTER', 'INFO').catch(() => '')))
      if (states.every((info) => info.includes('cluster_state:ok'))) return
      if (Date.now() > deadline) throw new Error(`the test Redis Cluster did not reach cluster_state:ok within ${STATE_TIMEOUT_MS} ms`)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }

  /** Starts one node on fresh ports; a port taken between the draw and the bind means new ports. */
  const startNode = async (): Promise<number> => {
    for (let attempt = 1; ; attempt++) {
      const port = await freePort()
      const busPort = await freePort()
      const nodeDir = path.join(dir, String(port))
      await mkdir(nodeDir, { recursive: true })
      const args = [
        '--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-port', String(busPort),
        // A lone node does not know its own address until another node tells it; clients need it in CLUSTER SLOTS.
        '--cluster-announce-ip', '127.0.0.1',
        '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', String(nodeTimeoutMs),
        '--save', '', '--appendonly', 'no', '--dir', nodeDir, '--logfile', ''
      ]
      const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] })
      let output = ''
      child.stdout?.on('data', (chunk: Buffer) => { output = (output + chunk.toString()).slice(-4000) })
      child.stderr?.on('data', (chunk: Buffer) => { output = (output + chunk.toString()).slice(-4000) })
      children.set(port, child)
      try {
        await waitForPong(port, child, () => output)
        return port
      } catch (err) {
        children.delete(port)
        child.kill('SIGKILL')
        if (attempt === 3 || !output.includes('Address already in use')) throw err
      }
    }
  }

  try {
    for (let i = 0; i < (primaries === 1 ? 1 : 6); i++) ports.push(await startNode())
    if (primaries === 1) await cli(ports[0] as number, 'CLUSTER', 'ADDSLOTSRANGE', '0', '16383')
    else await run(cliBinary, ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '1', '--cluster-yes'], { timeout: STATE_TIMEOUT_MS })
    await waitHealthy()
  } catch (err) {
    await close()
    throw err
  }

  return {
    nodes: ports.map((port) => ({ port, get killed () { return killed.has(port) } })),
    startupNodes: ports.map((port) => ({ host: '127.0.0.1', port })),
    cli,
    cliTool: async (...args) => (await run(cliBinary, args, { timeout: STATE_TIMEOUT_MS * 4 })).stdout,
    primaryPorts: async () => {
      const live = ports.find((port) => !killed.has(port)) as number
      const lines = (await cli(live, 'CLUSTER', 'NODES')).split('\n')
      return lines.filter((line) => line.includes('master') && !line.includes('fail') && /\d+-\d+|\s\d+$/.test(line))
        .map((line) => Number(/:(\d+)@/.exec(line)?.[1]))
    },
    kill: async (port) => {
      const child = children.get(port)
      killed.add(port)
      if (child === undefined || child.exitCode !== null) return
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGKILL')
      })
    },
    waitHealthy,
    close
  }
}
