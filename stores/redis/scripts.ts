/**
 * The Lua scripts of the Redis cache store. A script runs atomically on the server, which is what
 * makes a write all-or-nothing (no reader sees metadata without its body) and lets a read return
 * the metadata and the body of one variant in a single round trip.
 * @module
 */

import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'

/** A Lua script with its digest, run by {@link runScript}. */
export interface Script {
  readonly source: string
  readonly sha: string
}

function script (source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') }
}

/**
 * KEYS[1] url key; ARGV[1] metadata field prefix of the method (`m:GET:`).
 * Returns `[body-or-false, suffix1, meta1, suffix2, meta2, ...]`; the body is sent only when the
 * method has exactly one variant, the common case, so most hits take one round trip.
 */
export const READ_SCRIPT = script(`
local prefix = ARGV[1]
local fields = {}
for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(f, 1, #prefix) == prefix then fields[#fields + 1] = f end
end
if #fields == 0 then return {} end
local metas = redis.call('HMGET', KEYS[1], unpack(fields))
local out = { false }
if #fields == 1 then
  out[1] = redis.call('HGET', KEYS[1], 'b:' .. string.sub(fields[1], 3)) or false
end
for i, f in ipairs(fields) do
  if metas[i] then
    out[#out + 1] = string.sub(f, 3)
    out[#out + 1] = metas[i]
  end
end
return out
`)

/** Most variants one URL keeps; beyond it the variants closest to their deleteAt make room. */
export const MAX_VARIANTS_PER_URL = 256

/**
 * KEYS[1] url key, KEYS[2..] tag keys; ARGV: suffix, metadata, body, time to live (ms),
 * now (ms, the writer's clock, same clock as every stored deleteAt), tag member, variant limit.
 * Stores the variant, drops variants whose deleteAt has passed (and the shortest-lived ones
 * beyond the limit: `Vary: user-agent` must not grow a hash without bound), and keeps the key
 * (and each tag set) alive until its last variant must go, so Redis expires it: no sweeper.
 */
export const WRITE_SCRIPT = script(`
local key = KEYS[1]
local suffix = ARGV[1]
local own = tonumber(ARGV[4])
local now = tonumber(ARGV[5])
local limit = tonumber(ARGV[7])
redis.call('HSET', key, 'm:' .. suffix, ARGV[2], 'b:' .. suffix, ARGV[3])
local others = {}
for _, f in ipairs(redis.call('HKEYS', key)) do
  if string.sub(f, 1, 2) == 'm:' and string.sub(f, 3) ~= suffix then
    local meta = redis.call('HGET', key, f)
    local deleteAt = meta and tonumber(string.match(meta, '^(%d+)\\n'))
    if deleteAt == nil or deleteAt <= now then
      redis.call('HDEL', key, f, 'b:' .. string.sub(f, 3))
    else
      others[#others + 1] = { f, deleteAt }
    end
  end
end
table.sort(others, function (a, b) return a[2] < b[2] end)
local excess = #others + 1 - limit
local ttl = own
for i, other in ipairs(others) do
  if i <= excess then
    redis.call('HDEL', key, other[1], 'b:' .. string.sub(other[1], 3))
  elseif other[2] - now > ttl then
    ttl = other[2] - now
  end
end
if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
for i = 2, #KEYS do
  redis.call('SADD', KEYS[i], ARGV[6])
  if redis.call('PTTL', KEYS[i]) < own then redis.call('PEXPIRE', KEYS[i], own) end
end
return 1
`)

/**
 * KEYS: tag keys. Removes every variant indexed under them whose current write is the one that
 * was tagged (a later rewrite without the tag survives), deletes the tag sets, and returns the url
 * keys it touched so the calling process can drop them from its memory tier at once.
 */
export const DELETE_TAGS_SCRIPT = script(`
local touched = {}
local seen = {}
for _, tk in ipairs(KEYS) do
  for _, member in ipairs(redis.call('SMEMBERS', tk)) do
    local a = string.find(member, '\\n', 1, true)
    local b = a and string.find(member, '\\n', a + 1, true)
    if b then
      local suffix = string.sub(member, 1, a - 1)
      local writeId = string.sub(member, a + 1, b - 1)
      local key = string.sub(member, b + 1)
      local meta = redis.call('HGET', key, 'm:' .. suffix)
      if meta and string.match(meta, '^%d+\\n([^\\n]*)\\n') == writeId then
        redis.call('HDEL', key, 'm:' .. suffix, 'b:' .. suffix)
        if not seen[key] then
          seen[key] = true
          touched[#touched + 1] = key
        end
      end
    end
  end
  redis.call('DEL', tk)
end
return touched
`)

function isNoScript (err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT')
}

/**
 * Runs a script by digest and falls back to sending its source once when the server does not
 * know it yet (first use, or after a restart or `SCRIPT FLUSH`).
 */
export async function runScript (
  client: Redis, which: Script, keys: string[], args: Array<string | Buffer | number>, buffers: boolean
): Promise<unknown> {
  const call = buffers ? client.callBuffer.bind(client) : client.call.bind(client)
  try {
    return await call('EVALSHA', which.sha, keys.length, ...keys, ...args)
  } catch (err) {
    if (!isNoScript(err)) throw err
    return await call('EVAL', which.source, keys.length, ...keys, ...args)
  }
}
