/**
 * Runs an ES module script in a child Node process with a chosen `NODE_DEBUG`, for tests of the
 * debug log lines (which `debuglog` decides once per process, at its first use).
 */

import { spawn, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** The URL of the compiled package entry point, to import from a child script. */
export const indexUrl = new URL('../../src/index.js', import.meta.url).href

/** What a finished child printed on stderr, and its exit code. */
export interface ChildResult {
  code: number | null
  stderr: string
}

/** Runs `script` (ESM source) with `NODE_DEBUG=nodeDebug`; resolves when the child exits. */
export async function runWithNodeDebug (script: string, nodeDebug: string): Promise<ChildResult> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_DEBUG: nodeDebug } })
  let stderr = ''
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString() })
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  return { code, stderr }
}

/** What a finished child script printed, and its exit status. */
export interface ScriptResult {
  status: number | null
  stdout: string
  stderr: string
}

/** Runs the compiled script at `url` (a file URL) with `NODE_DEBUG=nodeDebug`, killed after `timeoutMs`. */
export function runScriptWithNodeDebug (url: URL, nodeDebug: string, timeoutMs: number): ScriptResult {
  const result = spawnSync(process.execPath, [fileURLToPath(url)], {
    env: { ...process.env, NODE_DEBUG: nodeDebug },
    encoding: 'utf8',
    timeout: timeoutMs
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}
