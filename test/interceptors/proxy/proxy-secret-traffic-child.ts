/** Child process for the NODE_DEBUG test: runs the credential-carrying proxied traffic. */

import { runProxiedSecretTraffic } from './proxy-secret-traffic.js'

await runProxiedSecretTraffic()
