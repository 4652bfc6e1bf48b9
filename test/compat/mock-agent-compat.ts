/**
 * Runs one MockAgent scenario through undici's MockAgent and through conduit's, so a test can
 * compare what a user observes. Error codes are compared with their library prefix removed
 * (`UND_` and `LIB_` name the same errors); messages are our own and are not compared.
 */

import { undici } from '../helpers/undici-reference.js'
import { MockAgent } from '../../src/mock/mock-agent.js'
import { fetch } from '../../src/fetch/fetch.js'

/** The parts of a library a scenario uses, typed loosely: both libraries are driven the same way. */
export interface MockLibrary {
  name: 'undici' | 'conduit'
  MockAgent: new (opts?: object) => LooseMockAgent
  fetch: (input: string, init?: object) => Promise<globalThis.Response>
}

/** A MockAgent as scenarios drive it (both libraries share this surface). */
// Deliberately untyped: the two libraries declare different types for the same calls.
export type LooseMockAgent = any

/** Both libraries, undici first (the reference). */
export const LIBRARIES: MockLibrary[] = [
  { name: 'undici', MockAgent: undici.MockAgent as unknown as MockLibrary['MockAgent'], fetch: undici.fetch as unknown as MockLibrary['fetch'] },
  { name: 'conduit', MockAgent: MockAgent as unknown as MockLibrary['MockAgent'], fetch: fetch as unknown as MockLibrary['fetch'] }
]

/** An origin nothing listens on, on a port fetch does not block (it refuses 7 and 9). */
export const MOCK_ORIGIN = 'http://127.0.0.1:5'

/** What a scenario produced: its value, or the kind and prefix-free code of what it threw. */
export type Outcome = { value: unknown } | { error: string, code: string | undefined }

/** The error code without the library prefix: `UND_ERR_X` and `LIB_ERR_X` both become `ERR_X`. */
export function neutralCode (code: unknown): string | undefined {
  return typeof code === 'string' ? code.replace(/^(UND|LIB)_/, '') : undefined
}

async function outcomeOf (scenario: () => unknown): Promise<Outcome> {
  try {
    return { value: await scenario() }
  } catch (err) {
    const cause = (err as { cause?: { code?: unknown } }).cause
    return { error: (err as Error).name, code: neutralCode((err as { code?: unknown }).code ?? cause?.code) }
  }
}

/**
 * Runs `scenario` with a fresh offline MockAgent of each library and returns both outcomes.
 * The agents are closed afterwards whatever happened.
 */
export async function inBoth (scenario: (agent: LooseMockAgent, lib: MockLibrary) => unknown, agentOptions: object = {}): Promise<{ undici: Outcome, conduit: Outcome }> {
  const outcomes: Partial<Record<MockLibrary['name'], Outcome>> = {}
  for (const lib of LIBRARIES) {
    const agent = new lib.MockAgent(agentOptions)
    agent.disableNetConnect()
    try {
      outcomes[lib.name] = await outcomeOf(() => scenario(agent, lib))
    } finally {
      // A scenario may have closed the agent itself; undici refuses a second close.
      await agent.close().catch((err: { code?: string }) => { if (neutralCode(err.code) !== 'ERR_DESTROYED') throw err })
    }
  }
  return outcomes as { undici: Outcome, conduit: Outcome }
}

/** Status, lower-case headers and body text of a `request()` response, for comparison. */
export async function requestSummary (agent: LooseMockAgent, opts: object): Promise<{ status: number, headers: Record<string, unknown>, body: string, trailers: Record<string, unknown> }> {
  const res = await agent.request({ origin: MOCK_ORIGIN, method: 'GET', ...opts })
  const body = await res.body.text() as string
  return { status: res.statusCode, headers: { ...res.headers }, body, trailers: { ...res.trailers } }
}
