/**
 * The longest delay a Node timer honours. Every option that ends up in `setTimeout` is checked
 * against it, because a longer delay (Infinity included) silently fires after 1 ms instead.
 * @module
 */

/** 2^31 - 1 milliseconds, about 24.8 days: the largest delay `setTimeout` keeps. */
export const MAX_TIMER_MS = 2_147_483_647
