import { interopSuite } from './interop-cases.js'
import { startNodeH2Origin } from '../helpers/node-h2-origin.js'
import { sha256 } from './site.js'
import type { InteropOrigin } from './interop-cases.js'

for (const tls of [true, false]) {
  interopSuite({
    name: tls ? 'node:http2 (h2 over TLS)' : 'node:http2 (h2c, prior knowledge)',
    tls,
    start: (site): Promise<InteropOrigin> => startNodeH2Origin(site.files, { tls }),
    echoTrailers: (body) => ({ 'x-body-sha256': sha256(body), 'x-body-length': String(body.length) }),
    goaway: 'scripted'
  })
}
