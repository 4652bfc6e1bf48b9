/**
 * The `typeOfService` request option: the IP header's TOS byte, set on the socket before the
 * request is written (as undici does over HTTP/1.1). Its range is checked with the other request
 * flags in request-fields.ts.
 * @module
 */

// The value each socket carries already, so a keep-alive connection is marked once, not per request.
const applied = new WeakMap<object, number>()

interface MarkableSocket { setTypeOfService?: (tos: number) => unknown }

/**
 * Marks `socket` with `typeOfService` when one is given and the runtime can (Node 24 and later).
 * Best effort: marking is a hint to the network, so a platform that refuses it does not fail the request.
 */
export function applyTypeOfService (socket: object, typeOfService: number | undefined): void {
  if (typeOfService === undefined || applied.get(socket) === typeOfService) return
  const setTypeOfService = (socket as MarkableSocket).setTypeOfService
  if (typeof setTypeOfService !== 'function') return
  try {
    setTypeOfService.call(socket, typeOfService)
    applied.set(socket, typeOfService)
  } catch {
    // Some platforms refuse the option for a socket state; the request goes out unmarked.
  }
}
