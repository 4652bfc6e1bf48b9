/**
 * Which bounded driver a steady-state count runs, and with which arguments: `instruction-steady.ts`
 * and `gc-steady.ts` take the same command line and must start the same process for it.
 * @module
 */

import { fileURLToPath } from 'node:url'

/** The driver script and its arguments for one steady-state count. */
export interface SteadyDriver {
  /** Absolute path of the driver script. */
  file: string
  /** Its command-line arguments. */
  args: string[]
  /** What one counted unit is, for the report line. */
  shape: string
}

/**
 * Mode `h2` runs `h2-instruction-driver.ts` (scenario = path, `extra` = streams in flight), mode
 * `websocket` runs `websocket-instruction-driver.ts` (scenario = message size, origin = the echo
 * server's ws: URL, `extra` = connections), any other mode `instruction-driver.ts`.
 */
export function steadyDriver (library: string, mode: string, scenario: string, warmup: string, requests: string, origin: string, extra: string): SteadyDriver {
  const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url))
  if (mode === 'h2') {
    return { file: here('./h2-instruction-driver.js'), args: [library, scenario, requests, origin, warmup, extra], shape: `h2 ${scenario} with ${extra} streams` }
  }
  if (mode === 'websocket') {
    return { file: here('./websocket-instruction-driver.js'), args: [library, origin, scenario, extra, requests, warmup], shape: `websocket ${scenario} B over ${extra} connections` }
  }
  return { file: here('./instruction-driver.js'), args: [library, mode, scenario, requests, origin, warmup], shape: `${mode} ${scenario}` }
}
