/**
 * Response bodies nobody read: a response dropped with its body unread is found when it is
 * garbage collected, and its body is cancelled so its connection is released.
 * @module
 */

import type { IncomingBody } from './incoming-body.js'
import type { Response } from './response.js'
import { queueMicrotask } from '../runtime/timers.js'

/**
 * A response dropped without reading its body would hold its connection forever (the body
 * pauses the socket once its buffer fills); when such a response is collected, its body is
 * cancelled so the connection is released.
 */
const unreadBodies = new FinalizationRegistry<IncomingBody>((body) => {
  body.cancelUnclaimed(collectedBeforeRead)
})

function collectedBeforeRead (): Error {
  return new DOMException('The response was garbage collected before its body was read', 'AbortError')
}

/**
 * Responses handed over while their body was still arriving, as (response, body) pairs. Most
 * bodies end in the same turn as the head, or are claimed by the caller's first reaction, and
 * then need no watch: registering every response with the registry costs more than the rest of
 * settling it. The list holds each response strongly until the check, so none can be collected
 * unwatched.
 */
let awaitingClaim: Array<Response | IncomingBody> = []

/** Watches `body` of `response`: if nobody claims it before the response is collected, it is cancelled. */
export function watchUnclaimed (response: Response, body: IncomingBody): void {
  // Queued after the resolution, so the check runs after the caller's first reaction to it.
  if (awaitingClaim.length === 0) queueMicrotask(registerUnclaimed)
  awaitingClaim.push(response, body)
}

function registerUnclaimed (): void {
  const pairs = awaitingClaim
  awaitingClaim = []
  for (let i = 0; i < pairs.length; i += 2) {
    const body = pairs[i + 1] as IncomingBody
    if (body.unclaimed) unreadBodies.register(pairs[i]!, body, body)
  }
}
