/**
 * The last check before a snapshot file is written: it is meant to be committed, so it must not
 * hold a credential that slipped past the header and query rules (a token in a response body, a
 * key in a URL path, a header named unusually). The scan looks for values shaped like planted
 * secrets, with the prefixes and lengths their issuers give them; a finding names where it is
 * and what it looks like, never the value.
 * @module
 */

import { showOrigin, showUrl } from '../../src/handler.js'
import { contentEncodingOf, decodeContent } from '../../stores/content-decoding.js'
import type { SnapshotHeaders, SnapshotRecord } from '../../stores/snapshot-file-store.js'

/** A kind of secret and the shape of its values. */
interface SecretShape {
  /** What a finding calls it. */
  kind: string
  /** Its values; global, so every occurrence is tried. */
  pattern: RegExp
  /** A second look at a match, where the shape alone is not telling enough. */
  confirm?: (match: RegExpExecArray) => boolean
}

/** `Basic` credentials decode to `user:password`; other base64 after the word is not a credential. */
function isUserPassword (match: RegExpExecArray): boolean {
  const decoded = Buffer.from(match[1] ?? '', 'base64').toString('latin1')
  return /^[\x20-\x7e]+:[\x20-\x7e]*$/.test(decoded)
}

/** The shapes looked for. Token lengths keep words such as `Bearer realm="api"` out. */
export const SECRET_SHAPES: readonly SecretShape[] = [
  { kind: 'a bearer token', pattern: /\bbearer\s+[A-Za-z0-9\-._~+/]{16,}=*/gi },
  { kind: 'Basic credentials', pattern: /\bbasic\s+([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/gi, confirm: isUserPassword },
  { kind: 'an AWS access key id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16}\b/g },
  { kind: 'an AWS secret access key', pattern: /aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])/gi },
  { kind: 'a private key', pattern: /-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----/g },
  { kind: 'a GitHub token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g },
  { kind: 'a Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: 'a Stripe secret key', pattern: /\b(?:sk|rk)_live_[A-Za-z0-9]{16,}/g },
  { kind: 'a Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { kind: 'a JSON Web Token', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: 'a password in a URL', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@"'<>]+:[^\s/@"'<>]+@[^\s/@"'<>]/gi }
]

/** The kinds of secret `text` seems to hold, each once. */
export function secretKinds (text: string): string[] {
  const kinds: string[] = []
  for (const shape of SECRET_SHAPES) {
    shape.pattern.lastIndex = 0
    let match: RegExpExecArray | null
    while ((match = shape.pattern.exec(text)) !== null) {
      if (shape.confirm === undefined || shape.confirm(match)) {
        kinds.push(shape.kind)
        break
      }
    }
  }
  return kinds
}

function scanHeaders (headers: SnapshotHeaders | undefined, what: string, kept: ReadonlySet<string>, found: (field: string, text: string) => void): void {
  for (const name of Object.keys(headers ?? {})) {
    // A credential header the user chose to keep holds the value they chose to keep.
    if (kept.has(name.toLowerCase())) continue
    const value = headers![name]!
    found(`${what} ${name}`, Array.isArray(value) ? value.join('\n') : value)
  }
}

/**
 * Where the records hold what looks like a secret: `GET https://api.example.org/me response
 * body: a bearer token`, one line per field and kind. Bodies are scanned decoded (a gzip body
 * as its text). Values of `keptHeaders` (lower-case names) are not scanned.
 */
export async function findSecrets (records: readonly SnapshotRecord[], keptHeaders: ReadonlySet<string>): Promise<string[]> {
  const findings: string[] = []
  for (const { snapshot } of records) {
    const { request } = snapshot
    const urlKinds = secretKinds(request.url)
    // A URL that holds a secret is named by its origin only.
    const named = `${request.method} ${urlKinds.length > 0 ? `${showOrigin(new URL(request.url))} (URL not shown)` : showUrl(request.url)}`
    const found = (field: string, text: string): void => {
      for (const kind of secretKinds(text)) findings.push(`${named} ${field}: ${kind}`)
    }
    for (const kind of urlKinds) findings.push(`${named} request URL: ${kind}`)
    scanHeaders(request.headers, 'request header', keptHeaders, found)
    found('request body', request.body ?? '')
    for (const [i, response] of snapshot.responses.entries()) {
      const which = snapshot.responses.length > 1 ? `response ${i + 1}` : 'response'
      scanHeaders(response.headers, `${which} header`, keptHeaders, found)
      scanHeaders(response.trailers, `${which} trailer`, keptHeaders, found)
      const wire = Buffer.from(response.body, 'base64')
      const body = await decodeContent(wire, contentEncodingOf(response.headers)) ?? wire
      // latin1 maps every byte to one character, so ASCII-shaped secrets are found in binary bodies too.
      found(`${which} body`, body.toString('latin1'))
    }
  }
  return findings
}
