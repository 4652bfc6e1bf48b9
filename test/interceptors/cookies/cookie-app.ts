/**
 * A small site for the cookies interceptor tests: logs in with a session cookie, echoes the
 * Cookie header it receives, redirects while setting cookies, and expires cookies.
 */

import type http from 'node:http'

/** The session cookie value the app hands out; tests check it never reaches a log or an error. */
export const SESSION_SECRET = 's3ss10n-S3CR3T-value'

/** Request handler of the app. */
export function cookieApp (req: http.IncomingMessage, res: http.ServerResponse): void {
  const path = (req.url ?? '/').split('?')[0]
  const cookie = req.headers.cookie ?? ''
  switch (path) {
    case '/login':
      res.writeHead(200, { 'set-cookie': [`session=${SESSION_SECRET}; Path=/; HttpOnly`, 'pref=dark; Path=/app'] }).end('logged in')
      return
    case '/logout':
      res.writeHead(200, { 'set-cookie': 'session=; Path=/; Max-Age=0' }).end('logged out')
      return
    case '/short':
      res.writeHead(200, { 'set-cookie': 'short=1; Path=/; Max-Age=60' }).end('short')
      return
    case '/secure':
      res.writeHead(200, { 'set-cookie': ['tls=1; Path=/; Secure', 'plain=1; Path=/'] }).end('secure')
      return
    case '/foreign-domain':
      res.writeHead(200, { 'set-cookie': ['foreign=1; Domain=example.com; Path=/', 'own=1; Path=/'] }).end('foreign')
      return
    case '/hop1':
      res.writeHead(302, { location: '/hop2', 'set-cookie': 'hop1=1; Path=/' }).end()
      return
    case '/hop2':
      // The second hop insists on the first hop's cookie, as a login flow would.
      if (!cookie.includes('hop1=1')) { res.writeHead(403).end('no hop1 cookie'); return }
      res.writeHead(303, { location: '/echo', 'set-cookie': 'hop2=1; Path=/' }).end()
      return
    default:
      res.writeHead(200, { 'content-type': 'text/plain' }).end(cookie)
  }
}
