/**
 * Tag invalidation on a Redis Cluster. On a single server one script reads a tag set and removes
 * every entry it names; on a cluster the entries of one tag sit in many slots, and a script may
 * touch one slot only. The design here:
 *
 * - A tag's set stays in the tag's own slot, with the same members as on a single server
 *   (`{suffix}\n{writeId}\n{url key}`). A write registers its tags *before* it writes the entry,
 *   and drops the entry when a registration fails, so every entry that exists is in its tags'
 *   sets; a member whose entry never came is harmless (its write id matches nothing).
 * - `deleteTags` drains each set with `SPOP` in batches and, per URL named (one slot each),
 *   runs one script that removes the variants still carrying the tagged write. A batch that fails
 *   is put back into the set, so a sweep interrupted by a failover is resumed by calling again.
 *
 * Rejected alternative: a tag set per slot beside the entries, swept over all 16384 slots (or
 * every primary with `SCAN`). It would save the registration round trip on tagged writes but
 * make every invalidation cost the whole keyspace; invalidations are rare, yet the point of
 * them is to take effect quickly, and this design costs only what the tag actually names.
 * @module
 */

import type { Cluster, Redis } from 'ioredis'
import type { FailOpen } from './fail-open.js'
import type { KeyLayout } from './key-layout.js'
import { DELETE_TAGGED_SCRIPT, TAG_REGISTER_SCRIPT, runScript } from './scripts.js'

/** Members popped from a tag set per round trip. */
const SWEEP_BATCH = 256
/** Rounds per tag and call: a set other hosts keep filling cannot hold `deleteTags` forever. */
const MAX_SWEEP_ROUNDS = 1024

/** What the cluster tag functions need from the store. */
export interface ClusterTagContext {
  readonly client: Redis | Cluster
  readonly failOpen: FailOpen
  readonly layout: KeyLayout
}

/** Adds `member` to every tag set; true when all of them have it. */
export async function registerTags (ctx: ClusterTagContext, tagKeys: string[], member: string, ttl: number): Promise<boolean> {
  const done = await Promise.all(tagKeys.map(async (tk) =>
    await ctx.failOpen.run('write', () => runScript(ctx.client, TAG_REGISTER_SCRIPT, [tk], [member, ttl], false))))
  return done.every((reply) => reply !== undefined)
}

/** Groups popped members by url key: `[suffix, writeId, suffix, writeId, ...]` per key. */
function byUrl (members: string[], urlPrefix: string): Map<string, string[]> {
  const groups = new Map<string, string[]>()
  for (const member of members) {
    const a = member.indexOf('\n')
    const b = a === -1 ? -1 : member.indexOf('\n', a + 1)
    if (b === -1) continue
    const key = member.slice(b + 1)
    if (!key.startsWith(urlPrefix)) continue
    let pairs = groups.get(key)
    if (pairs === undefined) groups.set(key, pairs = [])
    pairs.push(member.slice(0, a), member.slice(a + 1, b))
  }
  return groups
}

/** Runs the per-URL removal for one popped batch; returns the url keys changed and whether all ran. */
async function removeBatch (ctx: ClusterTagContext, members: string[]): Promise<{ touched: string[], ok: boolean }> {
  const { layout } = ctx
  const groups = [...byUrl(members, layout.urlPrefix)]
  const replies = await Promise.all(groups.map(async ([key, pairs]) => await ctx.failOpen.run('deleteTags', () =>
    runScript(ctx.client, DELETE_TAGGED_SCRIPT, [key], [layout.variantPrefix, key.slice(layout.urlPrefix.length), ...pairs], false))))
  return {
    touched: groups.filter((_, i) => replies[i] === 1).map(([key]) => key),
    ok: replies.every((reply) => reply !== undefined)
  }
}

/**
 * Removes every entry tagged with one of `tagKeys`, slot by slot. Resolves `ok: false` when part
 * of it could not be done (the rest stays in the sets for the next call), with the url keys it
 * changed either way.
 */
export async function deleteTagsAcrossSlots (ctx: ClusterTagContext, tagKeys: string[]): Promise<{ ok: boolean, touched: string[] }> {
  const touched: string[] = []
  let ok = true
  await Promise.all(tagKeys.map(async (tk) => {
    for (let round = 0; round < MAX_SWEEP_ROUNDS; round++) {
      const members = await ctx.failOpen.run('deleteTags', () => ctx.client.spop(tk, SWEEP_BATCH))
      if (members === undefined) {
        ok = false
        return
      }
      if (members.length === 0) return
      const batch = await removeBatch(ctx, members)
      touched.push(...batch.touched)
      if (!batch.ok) {
        // Put the batch back whole: removal is idempotent, and a lost member would leave its entry live.
        await ctx.failOpen.run('deleteTags', () => ctx.client.sadd(tk, ...members))
        ok = false
        return
      }
    }
    ok = false
  }))
  return { ok, touched }
}
