/**
 * A HAR 1.2 schema check, written from the specification (every object's required fields and
 * their types, the optional ones where present, ISO 8601 dates, timings of -1 or more with
 * send, wait and receive non-negative). Fields beginning with `_` are extensions and free.
 */

type Spec = 'string' | 'number' | 'integer' | 'boolean' | 'date' | 'timing' | 'non-negative' | ObjectSpec | [Spec]

interface ObjectSpec { required: Record<string, Spec>, optional?: Record<string, Spec> }

const NAME_VALUE: ObjectSpec = { required: { name: 'string', value: 'string' }, optional: { comment: 'string' } }
const COOKIE: ObjectSpec = {
  required: { name: 'string', value: 'string' },
  optional: { path: 'string', domain: 'string', expires: 'date', httpOnly: 'boolean', secure: 'boolean', comment: 'string', sameSite: 'string' }
}
const POST_DATA: ObjectSpec = {
  required: { mimeType: 'string' },
  optional: { params: [{ required: { name: 'string' }, optional: { value: 'string', fileName: 'string', contentType: 'string', comment: 'string' } }], text: 'string', comment: 'string' }
}
const REQUEST: ObjectSpec = {
  required: { method: 'string', url: 'string', httpVersion: 'string', cookies: [COOKIE], headers: [NAME_VALUE], queryString: [NAME_VALUE], headersSize: 'integer', bodySize: 'integer' },
  optional: { postData: POST_DATA, comment: 'string' }
}
const CONTENT: ObjectSpec = {
  required: { size: 'integer', mimeType: 'string' },
  optional: { compression: 'integer', text: 'string', encoding: 'string', comment: 'string' }
}
const RESPONSE: ObjectSpec = {
  required: { status: 'integer', statusText: 'string', httpVersion: 'string', cookies: [COOKIE], headers: [NAME_VALUE], content: CONTENT, redirectURL: 'string', headersSize: 'integer', bodySize: 'integer' },
  optional: { comment: 'string' }
}
const CACHE_STATE: ObjectSpec = { required: { lastAccess: 'string', eTag: 'string', hitCount: 'integer' }, optional: { expires: 'string', comment: 'string' } }
const TIMINGS: ObjectSpec = {
  required: { send: 'non-negative', wait: 'non-negative', receive: 'non-negative' },
  optional: { blocked: 'timing', dns: 'timing', connect: 'timing', ssl: 'timing', comment: 'string' }
}
const ENTRY: ObjectSpec = {
  required: { startedDateTime: 'date', time: 'non-negative', request: REQUEST, response: RESPONSE, cache: { required: {}, optional: { beforeRequest: CACHE_STATE, afterRequest: CACHE_STATE, comment: 'string' } }, timings: TIMINGS },
  optional: { pageref: 'string', serverIPAddress: 'string', connection: 'string', comment: 'string' }
}
const CREATOR: ObjectSpec = { required: { name: 'string', version: 'string' }, optional: { comment: 'string' } }
const PAGE: ObjectSpec = {
  required: { startedDateTime: 'date', id: 'string', title: 'string', pageTimings: { required: {}, optional: { onContentLoad: 'timing', onLoad: 'timing', comment: 'string' } } },
  optional: { comment: 'string' }
}
const HAR: ObjectSpec = {
  required: { log: { required: { version: 'string', creator: CREATOR, entries: [ENTRY] }, optional: { browser: CREATOR, pages: [PAGE], comment: 'string' } } }
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/

function check (value: unknown, spec: Spec, path: string, problems: string[]): void {
  if (Array.isArray(spec)) {
    if (!Array.isArray(value)) { problems.push(`${path} must be an array`); return }
    value.forEach((item, i) => check(item, spec[0], `${path}[${i}]`, problems))
    return
  }
  if (typeof spec === 'object') {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) { problems.push(`${path} must be an object`); return }
    const record = value as Record<string, unknown>
    for (const [name, inner] of Object.entries(spec.required)) {
      if (!(name in record)) problems.push(`${path}.${name} is required`)
      else check(record[name], inner, `${path}.${name}`, problems)
    }
    for (const name of Object.keys(record)) {
      if (name in spec.required || name.startsWith('_')) continue
      const inner = spec.optional?.[name]
      if (inner === undefined) problems.push(`${path}.${name} is not a HAR 1.2 field`)
      else check(record[name], inner, `${path}.${name}`, problems)
    }
    return
  }
  const ok = spec === 'string' ? typeof value === 'string'
    : spec === 'boolean' ? typeof value === 'boolean'
      : spec === 'number' ? typeof value === 'number' && Number.isFinite(value)
        : spec === 'integer' ? Number.isInteger(value)
          : spec === 'date' ? typeof value === 'string' && ISO_DATE.test(value) && !Number.isNaN(Date.parse(value))
            : spec === 'timing' ? typeof value === 'number' && value >= -1
              : typeof value === 'number' && value >= 0
  if (!ok) problems.push(`${path} must be ${spec === 'date' ? 'an ISO 8601 date' : spec === 'timing' ? 'a number of -1 or more' : spec === 'non-negative' ? 'a non-negative number' : `a ${spec}`}`)
}

/** The ways `har` breaks the HAR 1.2 specification (empty when it does not), and its version. */
export function harProblems (har: unknown): string[] {
  const problems: string[] = []
  check(har, HAR, 'har', problems)
  const version = (har as { log?: { version?: unknown } } | null)?.log?.version
  if (version !== '1.2') problems.push(`har.log.version must be "1.2", got ${JSON.stringify(version)}`)
  return problems
}
