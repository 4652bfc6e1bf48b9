/**
 * Differential-test harness. README: write a scenario once as `async (lib) => observation`,
 * where `lib` is the undici module or conduit's (same export names), run it with
 * `const { undici, conduit } = await both(scenario)` against one real local server, and compare
 * with `assert.deepEqual(conduit, undici)`. Record errors with `caught(promise)` or
 * `errorShape(err)`: they keep the class name and the code with undici's `UND_` spelled `LIB_`,
 * so equal shapes mean "the same error an undici user would see". Intended differences are
 * listed in docs/undici-differences.md; a scenario leaves them out of what it observes.
 */

import { undici as undiciModule } from '../helpers/undici-reference.js'
import * as conduitModule from '../../src/index.js'
import { fromUndiciCode } from '../../src/errors.js'

/** Either library, seen through the export names they share (loosely typed on purpose). */
export type Lib = Record<string, any>

/** The two libraries by name. */
export const libraries: Readonly<Record<'undici' | 'conduit', Lib>> = {
  undici: undiciModule as Lib,
  conduit: conduitModule as Lib
}

/** What a user observes of an error: its class name and its code (with `UND_` spelled `LIB_`). */
export interface ErrorShape {
  error: string
  code: string | undefined
}

/** Maps an undici error code to conduit's spelling (`UND_ERR_SOCKET` to `LIB_ERR_SOCKET`). */
export function mapCode (code: unknown): string | undefined {
  if (typeof code !== 'string') return undefined
  return fromUndiciCode(code)
}

/** The observable shape of `err`. */
export function errorShape (err: unknown): ErrorShape {
  const e = err as { name?: unknown, code?: unknown } | null
  return { error: typeof e?.name === 'string' ? e.name : typeof err, code: mapCode(e?.code) }
}

/** Settles `promise` into `{ value }` or the shape of its rejection, so outcomes compare with deepEqual. */
export async function caught<T> (promise: Promise<T> | (() => Promise<T>)): Promise<{ value: T } | ErrorShape> {
  try {
    return { value: await (typeof promise === 'function' ? promise() : promise) }
  } catch (err) {
    return errorShape(err)
  }
}

/** Runs `scenario` through undici, then through conduit (one after the other, so servers see them apart). */
export async function both<T> (scenario: (lib: Lib, name: 'undici' | 'conduit') => Promise<T>): Promise<{ undici: T, conduit: T }> {
  const undici = await scenario(libraries.undici, 'undici')
  const conduit = await scenario(libraries.conduit, 'conduit')
  return { undici, conduit }
}

/** Headers that legitimately differ between two responses: the clock and connection management. */
const VOLATILE_HEADERS = new Set(['date', 'keep-alive', 'connection'])

/** Response headers without the volatile ones, sorted by name, for comparison. */
export function stableHeaders (headers: Record<string, unknown>): Array<[string, unknown]> {
  return Object.entries(headers).filter(([name]) => !VOLATILE_HEADERS.has(name)).sort(([a], [b]) => a.localeCompare(b))
}
