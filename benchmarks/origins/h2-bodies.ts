/**
 * The bodies every origin of the HTTP/2 benchmark serves, by path: one definition for the
 * node:http2 origin process and the file servers (nginx, h2o) alike.
 * @module
 */

/** Path to body: 1 KiB and 1 MiB for the request rows, 10 MiB for the download over added latency. */
export const H2_BODIES: Readonly<Record<string, Buffer>> = Object.freeze({
  '/1k': Buffer.alloc(1024, 'k'),
  '/1m': Buffer.alloc(1024 * 1024, 'm'),
  '/10m': Buffer.alloc(10 * 1024 * 1024, 't')
})
