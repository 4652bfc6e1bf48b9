/** Child process for the NODE_DEBUG scan: runs the credential-carrying traffic, then prints how many scenarios failed. */

import { runSecretTraffic } from './secret-traffic.js'

const { errors } = await runSecretTraffic()
process.stdout.write(`failed scenarios: ${errors.size}\n`)
