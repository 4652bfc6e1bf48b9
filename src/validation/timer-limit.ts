/**
 * The longest delay a Node timer honours. Every option that ends up in `setTimeout` is checked
 * against it, because a longer delay (Infinity included) silently fires after 1 ms instead.
 * @module
 */

import { failOption } from './options.js'

/** 2^31 - 1 milliseconds, about 24.8 days: the largest delay `setTimeout` keeps. */
export const MAX_TIMER_MS = 2_147_483_647

/**
 * Reads a duration option: `undefined` or `null` give `fallback`; anything else must be a number
 * of milliseconds a timer can hold.
 * @throws InvalidArgumentError naming `where`, the option and the value
 */
export function timerMilliseconds<F extends number | undefined> (where: string, name: string, value: unknown, fallback: F): number | F {
  if (value === undefined || value === null) return fallback
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0 || value > MAX_TIMER_MS) {
    failOption(where, name, `a number of milliseconds from 0 to ${MAX_TIMER_MS}`, value)
  }
  return value
}
