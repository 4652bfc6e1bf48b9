/**
 * HTTP-date parsing (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime forms
 * that recipients must still accept. Always GMT, never the local zone.
 * @module
 */

import { trimOws } from '../../src/handler.js'

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']

// Sun, 06 Nov 1994 08:49:37 GMT
const IMF_FIXDATE = /^[a-z]{3}, (\d{2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) gmt$/
// Sunday, 06-Nov-94 08:49:37 GMT
const RFC_850 = /^[a-z]{6,9}, (\d{2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) gmt$/
// Sun Nov  6 08:49:37 1994
const ASCTIME = /^[a-z]{3} ([a-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/

function build (year: number, monthName: string, day: number, hour: number, minute: number, second: number): number | undefined {
  const month = MONTHS.indexOf(monthName)
  if (month === -1 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined
  const time = Date.UTC(year, month, day, hour, minute, Math.min(second, 59))
  // Date.UTC rolls 31 Feb over into March; such a date is invalid, not a different day.
  return new Date(time).getUTCDate() === day ? time : undefined
}

/** Milliseconds since the epoch for a valid HTTP-date, or undefined. */
export function parseHttpDate (value: string | string[] | undefined): number | undefined {
  if (value === undefined || Array.isArray(value)) return undefined
  const text = trimOws(value).toLowerCase()
  let m = IMF_FIXDATE.exec(text)
  if (m !== null) return build(Number(m[3]), m[2], Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]))
  m = RFC_850.exec(text)
  if (m !== null) {
    // RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is in the past century.
    const now = new Date(Date.now()).getUTCFullYear()
    let year = 2000 + Number(m[3])
    if (year > now + 50) year -= 100
    return build(year, m[2], Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]))
  }
  m = ASCTIME.exec(text)
  if (m !== null) return build(Number(m[6]), m[1], Number(trimOws(m[2])), Number(m[3]), Number(m[4]), Number(m[5]))
  return undefined
}
