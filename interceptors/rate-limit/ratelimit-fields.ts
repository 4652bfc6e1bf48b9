/**
 * The IETF httpapi `RateLimit` and `RateLimit-Policy` response fields (structured-field lists of
 * named policies): `RateLimit: "default";r=0;t=5` says 0 requests remain for 5 seconds,
 * `RateLimit-Policy: "default";q=100;w=60` that the quota is 100 requests per 60 seconds.
 * Parsed leniently: an item that does not parse is skipped, never guessed at.
 * @module
 */

/** What the server said is left: the most restrictive of its policies. */
export interface RateLimitState {
  /** Requests remaining in the current window. */
  remaining: number
  /** Seconds until the window resets. */
  resetSeconds: number
}

/** A quota: `quota` requests per `windowSeconds`. */
export interface RateLimitPolicy {
  /** Requests per window. */
  quota: number
  /** Window length, in seconds. */
  windowSeconds: number
}

const MAX_INTEGER = 999_999_999_999_999 // the largest structured-field integer

function joined (value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value
}

/** The integer parameters of each list item, by name (`r`, `t`, `q`, `w`). */
function itemParameters (field: string): Array<Map<string, number>> {
  const items: Array<Map<string, number>> = []
  for (const item of field.split(',')) {
    const parts = item.split(';')
    const params = new Map<string, number>()
    for (const part of parts.slice(1)) {
      const m = /^\s*([a-z*][a-z0-9_.*-]*)=(\d{1,15})\s*$/.exec(part)
      if (m !== null) params.set(m[1]!, Math.min(Number(m[2]), MAX_INTEGER))
    }
    items.push(params)
  }
  return items
}

/** The `RateLimit` field, the policy with the fewest requests left; undefined when no item has `r`. */
export function parseRateLimit (value: string | string[] | undefined): RateLimitState | undefined {
  const field = joined(value)
  if (field === undefined) return undefined
  let state: RateLimitState | undefined
  for (const params of itemParameters(field)) {
    const remaining = params.get('r')
    if (remaining === undefined) continue
    const resetSeconds = params.get('t') ?? 0
    if (state === undefined || remaining < state.remaining || (remaining === state.remaining && resetSeconds > state.resetSeconds)) {
      state = { remaining, resetSeconds }
    }
  }
  return state
}

/** The `RateLimit-Policy` field, the policy with the lowest rate; undefined when no item has both `q` and a positive `w`. */
export function parseRateLimitPolicy (value: string | string[] | undefined): RateLimitPolicy | undefined {
  const field = joined(value)
  if (field === undefined) return undefined
  let policy: RateLimitPolicy | undefined
  for (const params of itemParameters(field)) {
    const quota = params.get('q')
    const windowSeconds = params.get('w')
    if (quota === undefined || windowSeconds === undefined || windowSeconds <= 0) continue
    if (policy === undefined || quota / windowSeconds < policy.quota / policy.windowSeconds) policy = { quota, windowSeconds }
  }
  return policy
}
