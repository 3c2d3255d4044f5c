'use strict';
// Leader election leases: redis-leader 0.1 and safe-redis-leader 0.0.6, both on ioredis.
// Source read: node_modules/redis-leader/index.js (key 'leader:' + sha1(options.key); this.id =
// uuid.v4(); elect(): SET key id PX ttl NX, ttl default 10000; while elected, _renew() every ttl / 2:
// GET == id -> PEXPIRE ttl); node_modules/safe-redis-leader/src/src/index.js (the same key scheme;
// id = 'leader:' + sha1(32 random bytes as base64); runElection(): SET key id PX ttl NX; renew() every
// ttl / 2 through a Lua GET == id -> PEXPIRE). Candidates that lose retry the SET every `wait` ms: they
// leave no trace in Redis.
const C = require('./_common');
const crypto = require('crypto');

const sha1 = (s) => crypto.createHash('sha1').update(s).digest('hex');

C.run(async (cfg) => {
  const Leader = require('redis-leader');
  const { createSafeRedisLeader } = require('safe-redis-leader');
  const Redis = require('ioredis');
  const clients = [];
  const mk = () => { const c = new Redis(C.ioredisOpts(cfg)); clients.push(c); return c; };
  const stops = [];
  C.onStop(() => { stops.forEach((f) => f()); clients.forEach((c) => c.disconnect()); });
  const reader = mk();
  const renewal = (ttl, who) => ({ every_ms: ttl / 2, rule: `${who} renews while elected every ttl / 2 = ${ttl / 2} ms (PEXPIRE back to ttl)` });

  // redis-leader: one leader and one candidate waiting on the same key, 4 s lease.
  const lVersion = C.versionOf('redis-leader');
  const electedOnce = (leader) => new Promise((resolve) => leader.once('elected', resolve));
  const first = new Leader(mk(), { key: `${cfg.prefix}billing-cron`, ttl: 4000, wait: 500 });
  first.on('error', (e) => C.fail(`redis-leader: ${e.message}`));
  const won = electedOnce(first);
  first.elect();
  await won;
  const second = new Leader(mk(), { key: `${cfg.prefix}billing-cron`, ttl: 4000, wait: 500 });
  second.on('error', (e) => C.fail(`redis-leader: ${e.message}`));
  second.on('elected', () => C.fail('redis-leader: the second candidate was elected while the first renews'));
  second.elect();
  stops.push(() => { clearInterval(first.renewId); clearTimeout(second.electId); });
  const key1 = `leader:${sha1(`${cfg.prefix}billing-cron`)}`;
  C.made({ library: 'redis-leader', package: 'redis-leader', version: lVersion, key: key1, type: 'string',
    kind: 'mutex', owner: first.id, owner_meaning: 'uuid v4 per Leader instance', lease_ms: 4000,
    renewal: renewal(4000, 'redis-leader') });

  // safe-redis-leader: one leader, 6 s lease.
  const sVersion = C.versionOf('safe-redis-leader');
  const safe = await createSafeRedisLeader({ asyncRedis: mk(), ttl: 6000, wait: 500, key: `${cfg.prefix}mailer` });
  safe.on('error', (e) => C.fail(`safe-redis-leader: ${e.message}`));
  const safeWon = new Promise((resolve) => safe.once('elected', resolve));
  await safe.elect();
  await safeWon;
  const key2 = `leader:${sha1(`${cfg.prefix}mailer`)}`;
  const id2 = await reader.get(key2);
  if (!id2) throw new Error(`safe-redis-leader did not write ${key2}`);
  C.made({ library: 'safe-redis-leader', package: 'safe-redis-leader', version: sVersion, key: key2, type: 'string',
    kind: 'mutex', owner: id2, owner_meaning: "'leader:' + sha1 of 32 random bytes, per elector", lease_ms: 6000,
    renewal: renewal(6000, 'safe-redis-leader') });
});
