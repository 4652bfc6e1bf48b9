import { interopSuite } from './interop-cases.js'
import { startNghttpd, NGHTTPD_TRAILER } from '../helpers/nghttpd.js'
import type { InteropOrigin } from './interop-cases.js'

for (const tls of [true, false]) {
  interopSuite({
    name: tls ? 'nghttpd (h2 over TLS)' : 'nghttpd (h2c, prior knowledge)',
    tls,
    start: (site): Promise<InteropOrigin> => startNghttpd(site.files, { tls }),
    // --trailer adds its field to every response with a body, the echoed upload's included.
    echoTrailers: () => NGHTTPD_TRAILER,
    // nghttpd has no graceful reload: the GOAWAY case restarts it between two requests instead.
    goaway: 'restart'
  })
}
