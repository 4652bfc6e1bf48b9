/**
 * `Retry-After` (RFC 9110 section 10.2.3): delay-seconds or an HTTP-date, turned into a wait in milliseconds.
 * @module
 */

import { trimOws } from '../../src/handler.js'

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)'
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)'
const MONTH = `(${MONTHS.join('|')})`
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})'

// The three HTTP-date forms of RFC 9110 section 5.6.7; recipients must accept all of them.
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`)
const RFC850_DATE = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`)
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`)

function utc (year: number, month: string, day: number, h: string, m: string, s: string): number | undefined {
  const hours = Number(h)
  const minutes = Number(m)
  // A leap second (60) is legal in HTTP-date; it lands on the next minute, which is close enough for a wait.
  const seconds = Number(s)
  if (day < 1 || day > 31 || hours > 23 || minutes > 59 || seconds > 60) return undefined
  const monthIndex = MONTHS.indexOf(month)
  const time = Date.UTC(year, monthIndex, day, hours, minutes, seconds)
  // Reject dates such as 31 Feb, which Date.UTC would roll over into March.
  if (new Date(time).getUTCDate() !== day && seconds !== 60) return undefined
  return time
}

/**
 * Parses an HTTP-date (IMF-fixdate, RFC 850 or asctime form) to epoch milliseconds; undefined when malformed.
 * @example
 * parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT') // 784111777000
 */
export function parseHttpDate (value: string): number | undefined {
  let m = IMF_FIXDATE.exec(value)
  if (m !== null) return utc(Number(m[3]), m[2]!, Number(m[1]), m[4]!, m[5]!, m[6]!)
  m = RFC850_DATE.exec(value)
  if (m !== null) {
    // RFC 9110: a two-digit year more than 50 years in the future is read as the past century.
    const yy = Number(m[3])
    const thisYear = new Date().getUTCFullYear()
    let year = Math.floor(thisYear / 100) * 100 + yy
    if (year > thisYear + 50) year -= 100
    return utc(year, m[2]!, Number(m[1]), m[4]!, m[5]!, m[6]!)
  }
  m = ASCTIME_DATE.exec(value)
  if (m !== null) return utc(Number(m[6]), m[1]!, Number(trimOws(m[2]!)), m[3]!, m[4]!, m[5]!)
  return undefined
}

/**
 * Turns a `Retry-After` value into a wait in milliseconds from `now`: delay-seconds times 1000,
 * or the time until the HTTP-date (0 when it has passed). Undefined when absent or malformed,
 * so the caller falls back to its own backoff.
 * @example
 * retryAfterMs('3', Date.now()) // 3000
 */
export function retryAfterMs (header: string | string[] | undefined, now: number): number | undefined {
  if (header === undefined) return undefined
  // A repeated header is invalid for a singleton field; the first value is the sender's intent.
  const first = Array.isArray(header) ? header[0] : header
  const value = first === undefined ? undefined : trimOws(first)
  if (value === undefined || value === '') return undefined
  if (/^\d+$/.test(value)) return Number(value) * 1000
  const at = parseHttpDate(value)
  return at === undefined ? undefined : Math.max(0, at - now)
}
