/**
 * nginx (Debian's package) as a real HTTP/2 server for integration tests: TLS with the test
 * certificate, `http2` on, a few fixed locations and a static directory, on a free loopback port.
 */

import { writeFile } from 'node:fs/promises'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { startChildServerIn } from './child-server.js'
import { staticSiteDir } from './static-site.js'
import { requireTool } from '../../helpers/test-tools.js'
import { freePort } from '../../helpers/free-port.js'

/** The trailer nginx adds to what `/echo` answers (with {@link NginxOptions.echoUpstream}). */
export const NGINX_ECHO_TRAILER = { 'x-served-by': 'nginx' }

/** A running nginx. */
export interface Nginx {
  /** `https://localhost:PORT`. */
  origin: string
  /** The directory nginx serves static files from. */
  root: string
  /** `nginx -s reload`: new workers take over, the old ones finish their requests and exit. */
  reload: () => void
  stop: () => Promise<void>
}

/** Options of {@link startNginx}. */
export interface NginxOptions {
  /** Port of a WebSocket server on 127.0.0.1 that `/ws/` proxies upgrades to. */
  websocketUpstream?: number
  /** Port of an HTTP/1.1 server on 127.0.0.1 that `/echo` proxies to, adding {@link NGINX_ECHO_TRAILER}. */
  echoUpstream?: number
  /**
   * Requests one connection may carry before nginx ends it with GOAWAY (nginx's
   * `keepalive_requests`, 1000 unless set). A benchmark sets it high so one session lasts the run.
   */
  keepaliveRequests?: number
}

const RELOAD_TIMEOUT_MS = 15_000

/**
 * Starts nginx with HTTP/2 over TLS (and HTTP/1.1 for clients that do not negotiate h2). Fails
 * (never skips) when it is not installed.
 */
export async function startNginx (files: Record<string, Buffer | string> = {}, options: NginxOptions = {}): Promise<Nginx> {
  const binary = requireTool('nginx', 'nginx')
  const port = await freePort()
  const site = await staticSiteDir('conduit-nginx-', files)
  const { tmp, root } = site
  const dir = tmp.dir
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
    ssl_certificate ${site.cert};
    ssl_certificate_key ${site.key};
    client_max_body_size 16m;${options.keepaliveRequests === undefined ? '' : `
    keepalive_requests ${options.keepaliveRequests};`}
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
    }`}${options.echoUpstream === undefined
      ? ''
      : `
    location = /echo {
      proxy_pass http://127.0.0.1:${options.echoUpstream};
      proxy_http_version 1.1;
      ${Object.entries(NGINX_ECHO_TRAILER).map(([name, value]) => `add_trailer ${name} ${value};`).join(' ')}
    }`}
  }
}
`
  await writeFile(path.join(dir, 'nginx.conf'), conf)
  const args = ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log'), '-g', 'daemon off;']
  const server = await startChildServerIn(tmp, binary, args, port)
  const reload = (): void => {
    const run = spawnSync(binary, [...args, '-s', 'reload'], { encoding: 'utf8', timeout: RELOAD_TIMEOUT_MS })
    if (run.status !== 0) throw new Error(`nginx -s reload failed (${String(run.status ?? run.signal)}): ${run.stderr}`)
  }
  return { origin: `https://localhost:${port}`, root, reload, stop: server.stop }
}
