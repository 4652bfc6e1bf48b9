/**
 * nginx (Debian's package) as a real HTTP/2 server for integration tests: TLS with the test
 * certificate, `http2` on, a few fixed locations and a static directory, on a free loopback port.
 */

import { writeFile, mkdir, chmod } from 'node:fs/promises'
import path from 'node:path'
import { startChildServerIn, tempDir } from './child-server.js'
import { requireTool } from '../../helpers/test-tools.js'
import { freePort } from '../../helpers/free-port.js'
import { serverCrt, serverKey } from '../../helpers/certs.js'

/** A running nginx. */
export interface Nginx {
  /** `https://localhost:PORT`. */
  origin: string
  /** The directory nginx serves static files from. */
  root: string
  stop: () => Promise<void>
}

/** Options of {@link startNginx}. */
export interface NginxOptions {
  /** Port of a WebSocket server on 127.0.0.1 that `/ws/` proxies upgrades to. */
  websocketUpstream?: number
}

/**
 * Starts nginx with HTTP/2 over TLS (and HTTP/1.1 for clients that do not negotiate h2). Fails
 * (never skips) when it is not installed.
 */
export async function startNginx (files: Record<string, Buffer | string> = {}, options: NginxOptions = {}): Promise<Nginx> {
  const binary = requireTool('nginx', 'nginx')
  const port = await freePort()
  const tmp = await tempDir('conduit-nginx-')
  const dir = tmp.dir
  const root = path.join(dir, 'www')
  await mkdir(root)
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(root, name), content)
  // Workers may run as another user: they must be able to read what they serve.
  await chmod(dir, 0o755)
  await writeFile(path.join(dir, 'cert.pem'), serverCrt)
  await writeFile(path.join(dir, 'key.pem'), serverKey)
  const isRoot = process.getuid?.() === 0
  const conf = `
${isRoot ? 'user root;' : ''}
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  types { application/octet-stream bin; text/plain txt; }
  server {
    listen 127.0.0.1:${port} ssl http2;
    ssl_certificate ${dir}/cert.pem;
    ssl_certificate_key ${dir}/key.pem;
    client_max_body_size 16m;
    root ${root};
    location = /hello { default_type text/plain; return 200 "hello from nginx"; }
    location = /cached { default_type text/plain; add_header cache-control "max-age=60"; return 200 "cacheable"; }
    location = /upload { client_body_buffer_size 16m; default_type text/plain; return 201 "stored"; }
    location / { }${options.websocketUpstream === undefined
      ? ''
      : `
    location /ws/ {
      proxy_pass http://127.0.0.1:${options.websocketUpstream};
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection "upgrade";
    }`}
  }
}
`
  await writeFile(path.join(dir, 'nginx.conf'), conf)
  const server = await startChildServerIn(tmp, binary, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log'), '-g', 'daemon off;'], port)
  return { origin: `https://localhost:${port}`, root, stop: server.stop }
}
