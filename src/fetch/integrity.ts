/**
 * Subresource Integrity (W3C SRI): `integrity` metadata such as `sha384-<base64>`; a response
 * whose body matches none of the strongest listed digests is a network error.
 * @module
 */

import { createHash } from 'node:crypto'

/** Hash algorithms SRI allows, weakest first (the strongest present is the one checked). */
const ALGORITHMS = ['sha256', 'sha384', 'sha512'] as const
type Algorithm = typeof ALGORITHMS[number]

/** One parsed integrity token. */
export interface IntegrityMetadata {
  algorithm: Algorithm
  digest: string
}

const TOKEN = /^(sha256|sha384|sha512)-([A-Za-z0-9+/_-]+={0,2})(?:\?.*)?$/i

/** Parses integrity metadata; tokens with unknown algorithms are ignored, as SRI says. */
export function parseIntegrity (metadata: string): IntegrityMetadata[] {
  const result: IntegrityMetadata[] = []
  for (const token of metadata.split(/[\t\n\f\r ]+/)) {
    const match = TOKEN.exec(token)
    if (match !== null) result.push({ algorithm: match[1]!.toLowerCase() as Algorithm, digest: match[2]! })
  }
  return result
}

function normalizeDigest (digest: string): string {
  // SRI digests are base64; base64url spellings are accepted too and padding is optional.
  return digest.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '')
}

/**
 * True when `bytes` match `metadata`: an empty or unusable list matches everything; otherwise
 * one digest of the strongest algorithm listed must match.
 */
export function matchesIntegrity (bytes: Uint8Array, metadata: string): boolean {
  const parsed = parseIntegrity(metadata)
  if (parsed.length === 0) return true
  let strongest = 0
  for (const item of parsed) strongest = Math.max(strongest, ALGORITHMS.indexOf(item.algorithm))
  const algorithm = ALGORITHMS[strongest]!
  const actual = normalizeDigest(createHash(algorithm).update(bytes).digest('base64'))
  return parsed.some((item) => item.algorithm === algorithm && normalizeDigest(item.digest) === actual)
}
