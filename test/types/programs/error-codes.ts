// Deciding what to do by an error's class and code.
import { errors } from 'undici'

export function describe (err: unknown): string {
  if (err instanceof errors.HeadersTimeoutError) return `headers timed out (${err.name})`
  if (err instanceof errors.SocketError) return `socket failed: ${err.socket?.remoteAddress ?? 'unknown address'}`
  if (err instanceof errors.ResponseError) return `status ${err.statusCode}`
  if (err instanceof Error) return err.message
  return String(err)
}

// A switch over the codes narrows: each case is one of the literal codes of the error's class.
export function shouldRetry (err: errors.SocketError | errors.ConnectTimeoutError | errors.HeadersTimeoutError): boolean {
  switch (err.code) {
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return true
    case 'UND_ERR_HEADERS_TIMEOUT':
      return false
    default:
      return false
  }
}
