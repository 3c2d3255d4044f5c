'use strict';
// Leader election with ts-safe-redis-leader 0.0.5 (the TypeScript port of safe-redis-leader, on its own
// ioredis 4): a library outside the catalog (issue 31).
// Source read: node_modules/ts-safe-redis-leader/dist/safeRedisLeader.js: hashKey(k) = 'leader: ' + sha1(k)
// as hex (with a space, unlike safe-redis-leader's 'leader:'); the key is hashKey(options key) and the
// elector's id is hashKey(32 random bytes as base64), so key and value read alike; runElection(): SET key id
// PX ttl NX; while elected, renew() every ttl / 2 runs a Lua GET == id -> PEXPIRE ttl
// (atomicGetIsEqualSetPExpire.js). A candidate that loses retries every `wait` ms and writes nothing.
const C = require('./_common');
const crypto = require('crypto');

C.run(async (cfg) => {
  const { SafeRedisLeader, EmitterEnum } = require('ts-safe-redis-leader');
  const Redis = require('ioredis');
  const clients = [];
  const mk = () => { const c = new Redis(C.ioredisOpts(cfg)); clients.push(c); return c; };
  const leaders = [];
  C.onStop(() => {
    leaders.forEach((l) => { clearTimeout(l.renewTimeoutId); clearTimeout(l.electTimeoutId); });
    clients.forEach((c) => c.disconnect());
  });
  const reader = mk();
  const version = C.versionOf('ts-safe-redis-leader');
  for (const [name, ttl] of [['report-scheduler', 4000], ['mailer', 6000]]) {
    const election = `${cfg.prefix}${name}`;
    const key = `leader: ${crypto.createHash('sha1').update(election).digest('hex')}`;
    await reader.del(key); // a killed earlier run's
    const leader = new SafeRedisLeader(mk(), ttl, 500, election);
    leaders.push(leader);
    leader.on(EmitterEnum.ERROR, (e) => C.fail(`ts-safe-redis-leader: ${e && e.message}`));
    const won = new Promise((resolve) => leader.once(EmitterEnum.ELECTED, resolve));
    await leader.elect();
    await won;
    const id = await reader.get(key);
    if (!id || id !== leader.id) throw new Error(`ts-safe-redis-leader did not write its id to ${key}`);
    C.made({ library: 'ts-safe-redis-leader', package: 'ts-safe-redis-leader', version, case: name, key,
      type: 'string', kind: 'mutex', owner: id,
      owner_meaning: "'leader: ' + sha1 of 32 random bytes (base64), per elector", lease_ms: ttl,
      renewal: { every_ms: ttl / 2,
        rule: `renews while elected every ttl / 2 = ${ttl / 2} ms (Lua GET == id -> PEXPIRE ttl)` } });
  }
});
