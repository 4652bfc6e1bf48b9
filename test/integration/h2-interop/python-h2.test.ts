import { interopSuite } from './interop-cases.js'
import { startPythonH2 } from '../helpers/python-h2.js'
import { sha256 } from './site.js'
import type { InteropOrigin } from './interop-cases.js'

for (const tls of [true, false]) {
  interopSuite({
    name: tls ? 'python3-h2 (h2 over TLS)' : 'python3-h2 (h2c, prior knowledge)',
    tls,
    start: (site): Promise<InteropOrigin> => startPythonH2(site.files, { tls }),
    echoTrailers: (body) => ({ 'x-body-sha256': sha256(body), 'x-body-length': String(body.length) }),
    goaway: 'scripted'
  })
}
