/**
 * The Lua scripts of the Redis cache store. A script runs atomically on the server, which is what
 * makes a write all-or-nothing (no reader sees metadata without its body) and lets a read return
 * the metadata and the body of one variant in a single round trip.
 * @module
 */

import { createHash } from 'node:crypto'
import type { Cluster, Redis } from 'ioredis'

/** A Lua script with its digest, run by {@link runScript}. */
export interface Script {
  readonly source: string
  readonly sha: string
}

function script (source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') }
}

/**
 * The variant key name in Lua, mirroring `variantKey()` in key-layout.ts (Lua's `#` counts bytes,
 * as `Buffer.byteLength` does there). Shared by the scripts so the name has one source here.
 */
const VARIANT_KEY_LUA = `
local function variant_key (vprefix, tail, suffix)
  return vprefix .. #suffix .. ':' .. suffix .. tail
end
`

/**
 * The expiry rule of a URL index, shared by the scripts that change one. `survey` drops index
 * fields whose variant key is gone (Redis expired or evicted it) and returns the rest with their
 * remaining lives, read from Redis' own clock. `retime` sets the index to expire with its
 * longest-lived variant, lowering it as well as raising it, so the index never outlives what it
 * names. Kept out of the read script, which changes nothing.
 */
const INDEX_EXPIRY_LUA = VARIANT_KEY_LUA + `
local function survey (key, vprefix, tail)
  local alive = {}
  for _, f in ipairs(redis.call('HKEYS', key)) do
    local vk = variant_key(vprefix, tail, f)
    local ttl = redis.call('PTTL', vk)
    if ttl < 0 then
      -- -2: gone. -1: no expiry, which this store never writes: drop it rather than keep it forever.
      redis.call('DEL', vk)
      redis.call('HDEL', key, f)
    else
      alive[#alive + 1] = { f, ttl, vk }
    end
  end
  return alive
end
local function retime (key, alive)
  local longest = 0
  for _, v in ipairs(alive) do
    if v[2] > longest then longest = v[2] end
  end
  if longest > 0 then redis.call('PEXPIRE', key, longest) else redis.call('DEL', key) end
end
`

/**
 * KEYS[1] url key; ARGV: index field prefix of the method (`GET:`), variant key prefix, url tail
 * (origin + path). Returns `[body-or-false, suffix1, meta1, suffix2, meta2, ...]`; the body is
 * sent only when the method has exactly one live variant, the common case, so most hits take one
 * round trip. Read-only: a variant key that expired is skipped, and the next write prunes it.
 */
export const READ_SCRIPT = script(VARIANT_KEY_LUA + `
local prefix = ARGV[1]
local out = { false }
local found = {}
for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(f, 1, #prefix) == prefix then
    local vk = variant_key(ARGV[2], ARGV[3], f)
    local meta = redis.call('HGET', vk, 'm')
    if meta then
      found[#found + 1] = vk
      out[#out + 1] = f
      out[#out + 1] = meta
    end
  end
end
if #found == 0 then return {} end
if #found == 1 then out[1] = redis.call('HGET', found[1], 'b') or false end
return out
`)

/** Most variants one URL keeps; beyond it the variants closest to their deleteAt make room. */
export const MAX_VARIANTS_PER_URL = 256

/**
 * KEYS[1] url key, KEYS[2] variant key, KEYS[3..] tag keys; ARGV: suffix, write id, metadata,
 * body, time to live (ms), tag member, variant limit, variant key prefix, url tail.
 * Stores the variant under its own key expiring at its deleteAt, names it in the index, drops
 * index fields of variants already gone (and the shortest-lived ones beyond the limit:
 * `Vary: user-agent` must not grow without bound), and sets the index to expire with its
 * longest-lived variant, so a rewrite with a shorter life shortens the index's too.
 * Tag sets are shared by many URLs, so their life is only ever raised; a stale member holds no
 * body and is ignored by tag invalidation (its write id no longer matches).
 */
export const WRITE_SCRIPT = script(INDEX_EXPIRY_LUA + `
local key = KEYS[1]
local suffix = ARGV[1]
local own = tonumber(ARGV[5])
local limit = tonumber(ARGV[7])
redis.call('HSET', KEYS[2], 'm', ARGV[3], 'b', ARGV[4])
redis.call('PEXPIRE', KEYS[2], own)
redis.call('HSET', key, suffix, ARGV[2])
local others = {}
local kept = {}
for _, v in ipairs(survey(key, ARGV[8], ARGV[9])) do
  if v[1] == suffix then kept[#kept + 1] = v else others[#others + 1] = v end
end
table.sort(others, function (a, b) return a[2] < b[2] end)
local excess = #others + 1 - limit
for i, other in ipairs(others) do
  if i <= excess then
    redis.call('DEL', other[3])
    redis.call('HDEL', key, other[1])
  else
    kept[#kept + 1] = other
  end
end
retime(key, kept)
for i = 3, #KEYS do
  redis.call('SADD', KEYS[i], ARGV[6])
  if redis.call('PTTL', KEYS[i]) < own then redis.call('PEXPIRE', KEYS[i], own) end
end
return 1
`)

/** KEYS[1] url key; ARGV: variant key prefix, url tail. Removes the URL's index and every variant it names. */
export const DELETE_SCRIPT = script(VARIANT_KEY_LUA + `
for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
  redis.call('DEL', variant_key(ARGV[1], ARGV[2], f))
end
redis.call('DEL', KEYS[1])
return 1
`)

/**
 * KEYS: tag keys; ARGV: url key prefix, variant key prefix. Removes every variant indexed under
 * them whose current write is the one that was tagged (a later rewrite without the tag survives),
 * retimes the indexes it changed, deletes the tag sets, and returns the url keys it touched so
 * the calling process can drop them from its memory tier at once.
 */
export const DELETE_TAGS_SCRIPT = script(INDEX_EXPIRY_LUA + `
local uprefix = ARGV[1]
local vprefix = ARGV[2]
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
      if string.sub(key, 1, #uprefix) == uprefix and redis.call('HGET', key, suffix) == writeId then
        redis.call('DEL', variant_key(vprefix, string.sub(key, #uprefix + 1), suffix))
        redis.call('HDEL', key, suffix)
        if not seen[key] then
          seen[key] = true
          touched[#touched + 1] = key
        end
      end
    end
  end
  redis.call('DEL', tk)
end
for _, key in ipairs(touched) do
  retime(key, survey(key, vprefix, string.sub(key, #uprefix + 1)))
end
return touched
`)

/**
 * KEYS[1] tag set; ARGV: member, time to live (ms). On a Redis Cluster a tag's set lives in the
 * tag's own slot, apart from the entries it names, so a write registers its tags with this script
 * before the entry itself is written: an entry that exists is always found by tag invalidation.
 */
export const TAG_REGISTER_SCRIPT = script(`
redis.call('SADD', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
`)

/**
 * KEYS[1] url key; ARGV: variant key prefix, url tail, then suffix and write id pairs popped from
 * tag sets. Cluster tag invalidation for one URL (one slot): removes each named variant whose
 * current write is the tagged one, with the rule and retiming {@link DELETE_TAGS_SCRIPT} applies.
 * Returns 1 when it removed something.
 */
export const DELETE_TAGGED_SCRIPT = script(INDEX_EXPIRY_LUA + `
local key = KEYS[1]
local removed = 0
for i = 3, #ARGV - 1, 2 do
  if redis.call('HGET', key, ARGV[i]) == ARGV[i + 1] then
    redis.call('DEL', variant_key(ARGV[1], ARGV[2], ARGV[i]))
    redis.call('HDEL', key, ARGV[i])
    removed = 1
  end
end
if removed == 1 then retime(key, survey(key, ARGV[1], ARGV[2])) end
return removed
`)

function isNoScript (err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT')
}

/**
 * Runs a script by digest and falls back to sending its source once when the server does not
 * know it yet (first use, or after a restart or `SCRIPT FLUSH`).
 */
export async function runScript (
  client: Redis | Cluster, which: Script, keys: string[], args: Array<string | Buffer | number>, buffers: boolean
): Promise<unknown> {
  const call = buffers ? client.callBuffer.bind(client) : client.call.bind(client)
  try {
    return await call('EVALSHA', which.sha, keys.length, ...keys, ...args)
  } catch (err) {
    if (!isNoScript(err)) throw err
    return await call('EVAL', which.source, keys.length, ...keys, ...args)
  }
}
