/**
 * The public MIME type functions, with undici's names and result shapes: `parseMIMEType`
 * returns a record with `essence` or the string `'failure'`, as the MIME Sniffing Standard's
 * algorithm does; `serializeAMimeType` writes such a record back.
 * @module
 */

import { InvalidArgumentError } from '../errors.js'
import { describeValue } from '../validation/describe-value.js'
import { isMimeParameterValue, isMimeToken, parseMimeType, serializeMimeType } from './mime.js'

/** A parsed MIME type, as {@link parseMIMEType} returns it. */
export interface MIMEType {
  /** The type, in ASCII lower case (`text`). */
  type: string
  /** The subtype, in ASCII lower case (`html`). */
  subtype: string
  /** Parameters by lower-case name, in the order they first appeared; values as written (unquoted). */
  parameters: Map<string, string>
  /** `type/subtype`. */
  essence: string
}

/**
 * Parses a MIME type by the MIME Sniffing Standard. Malformed parameters are dropped, as the
 * standard says; an input that is no MIME type at all gives `'failure'`.
 * @throws InvalidArgumentError when `input` is not a string
 * @example
 * parseMIMEType('Text/HTML; Charset="utf-8"') // { type: 'text', subtype: 'html', essence: 'text/html', parameters: Map { 'charset' => 'utf-8' } }
 */
export function parseMIMEType (input: string): MIMEType | 'failure' {
  if (typeof input !== 'string') throw new InvalidArgumentError(`parseMIMEType: input must be a string, got ${describeValue(input)}`)
  const parsed = parseMimeType(input)
  if (parsed === null) return 'failure'
  return { type: parsed.type, subtype: parsed.subtype, parameters: parsed.parameters, essence: `${parsed.type}/${parsed.subtype}` }
}

/** The type and subtype of a record to serialize: from `essence`, as undici reads it, else from `type` and `subtype`. */
function essenceParts (mimeType: Partial<MIMEType>): [string, string] {
  const essence = typeof mimeType.essence === 'string' ? mimeType.essence : `${String(mimeType.type)}/${String(mimeType.subtype)}`
  const slash = essence.indexOf('/')
  const type = essence.slice(0, slash)
  const subtype = essence.slice(slash + 1)
  if (slash === -1 || !isMimeToken(type) || !isMimeToken(subtype)) {
    throw new InvalidArgumentError(`serializeAMimeType: the essence must be type/subtype made of HTTP token characters, got ${describeValue(essence)}`)
  }
  return [type, subtype]
}

/**
 * Serializes a MIME type record (one {@link parseMIMEType} returned, or built alike):
 * `type/subtype;name=value`, quoting values that are not tokens.
 * @throws InvalidArgumentError when `mimeType` is `'failure'` or not such a record, or a
 * parameter's name or value could not appear in a MIME type (the message names it)
 * @example
 * serializeAMimeType(parseMIMEType('text/plain;charset="a b"') as MIMEType) // 'text/plain;charset="a b"'
 */
export function serializeAMimeType (mimeType: MIMEType): string {
  if (mimeType === null || typeof mimeType !== 'object') {
    throw new InvalidArgumentError(`serializeAMimeType: expected a MIME type record, got ${describeValue(mimeType)}`)
  }
  const [type, subtype] = essenceParts(mimeType)
  const parameters: unknown = mimeType.parameters
  if (!(parameters instanceof Map)) {
    throw new InvalidArgumentError(`serializeAMimeType: parameters must be a Map, got ${describeValue(parameters)}`)
  }
  for (const [name, value] of parameters as Map<unknown, unknown>) {
    if (typeof name !== 'string' || !isMimeToken(name)) {
      throw new InvalidArgumentError(`serializeAMimeType: parameter name ${describeValue(name)} is not an HTTP token`)
    }
    if (typeof value !== 'string' || !isMimeParameterValue(value)) {
      throw new InvalidArgumentError(`serializeAMimeType: parameter ${name} has a value that cannot appear in a MIME type: ${describeValue(value)}`)
    }
  }
  return serializeMimeType({ type, subtype, parameters: parameters as Map<string, string> })
}
