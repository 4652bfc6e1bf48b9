/**
 * The user information of a URL as HTTP Basic credentials, for the requests the Fetch standard
 * marks with its use-URL-credentials flag (a WebSocket handshake, an EventSource): sent only
 * after the server answered 401, never in the first request.
 * @module
 */

/** `Basic base64(user:password)` from `url`'s user information, percent-decoded; undefined when it has none. */
export function urlBasicAuthorization (url: URL): string | undefined {
  if (url.username === '' && url.password === '') return undefined
  return `Basic ${Buffer.from(`${percentDecoded(url.username)}:${percentDecoded(url.password)}`, 'utf8').toString('base64')}`
}

/** `text` percent-decoded; a malformed escape leaves it as written, as a URL parser keeps it. */
function percentDecoded (text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
