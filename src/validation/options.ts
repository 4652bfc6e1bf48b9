/**
 * The one wording of a bad option across the library, `<who>: <name> must be <rule>, got <value>`:
 * every options file fails through {@link failOption}, with the error class its contract names
 * and the value shown the way its messages always have.
 * @module
 */

import { InvalidArgumentError } from '../errors.js'
import { describeValue } from './describe-value.js'

/** Renders a bad value after "got". */
export type ShowValue = (value: unknown) => string

/** How a component reports a bad option. */
export interface OptionFailure {
  /**
   * The error class thrown.
   * @defaultValue InvalidArgumentError; the cache stores throw `TypeError`, as their contract says
   */
  error?: new (message: string) => Error
  /**
   * How the bad value is shown.
   * @defaultValue {@link describeValue}
   */
  show?: ShowValue
}

/** A store's bad option: a `TypeError`, as the cache store contract says. */
export const STORE_OPTION_FAILURE: OptionFailure = Object.freeze({ error: TypeError })

/**
 * Throws for option `name` of `who` (`retry()`, `new Client()`...), which must be `rule` and is
 * `value`, e.g. `retry(): maxRetries must be a non-negative integer, got -1`.
 */
export function failOption (who: string, name: string, rule: string, value: unknown, failure?: OptionFailure): never {
  const show = failure?.show ?? describeValue
  const ErrorClass = failure?.error ?? InvalidArgumentError
  throw new ErrorClass(`${who}: ${name} must be ${rule}, got ${show(value)}`)
}
