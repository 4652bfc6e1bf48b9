/**
 * Runs one scenario of hostile-client-child.ts in a process of its own against a server this
 * process started, and returns its report: the memory tests assert on the child's RSS, which
 * nothing in the test process itself can inflate.
 */

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import type { ChildReport } from './hostile-client-child.js'

const CHILD = fileURLToPath(new URL('./hostile-client-child.js', import.meta.url))

/** The RSS a client may reach while a hostile server floods it, bytes. */
export const RSS_LIMIT = 200 * 1024 * 1024

/** How long a scenario may run before its client is killed (a client that hangs fails instead of holding the test). */
const CHILD_DEADLINE_MS = 60_000

/** Runs `scenario` against `url`; rejects when the child exits without a report. */
export async function runHostileClient (scenario: string, url: string): Promise<ChildReport & { exitCode: number | null }> {
  const child = spawn(process.execPath, [CHILD, scenario, url], { stdio: ['ignore', 'pipe', 'pipe'] })
  const deadline = setTimeout(() => { child.kill('SIGKILL') }, CHILD_DEADLINE_MS)
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (text: string) => { stdout += text })
  child.stderr.setEncoding('utf8').on('data', (text: string) => { stderr += text })
  const [exitCode] = await once(child, 'exit') as [number | null]
  clearTimeout(deadline)
  const line = stdout.trim().split('\n').pop() ?? ''
  if (line === '') throw new Error(`the ${scenario} client exited with ${exitCode} and no report; stderr: ${stderr.slice(-2000)}`)
  return { ...JSON.parse(line) as ChildReport, exitCode }
}
