import { interopSuite } from './interop-cases.js'
import { startH2o } from '../helpers/h2o.js'
import type { InteropOrigin } from './interop-cases.js'

interopSuite({
  name: 'h2o (h2 over TLS)',
  tls: true,
  start: (site): Promise<InteropOrigin> => startH2o(site.files),
  // An mruby handler of h2o 2.2 has no way to send trailers: the response ends with its body.
  echoTrailers: () => ({}),
  goaway: 'reload'
})
