'use strict';
// redis-semaphore (swarthy/redis-semaphore) on ioredis.
// Source read: node_modules/redis-semaphore/lib/Lock.js (identifier = crypto.randomUUID(),
// REFRESH_INTERVAL_COEF = 0.8, setInterval(_processRefresh, refreshInterval)), lib/misc.js
// (lockTimeout default 10000), lib/RedisMutex.js (key `mutex:<key>`), lib/RedisSemaphore.js
// (key `semaphore:<key>`), lib/mutex/acquire.js (SET key id PX t NX), lib/mutex/refresh.js
// (PEXPIRE if equal), lib/semaphore/acquire/lua.js + refresh/lua.js (ZSET member=id
// score=now ms, PEXPIRE key), lib/multiSemaphore/acquire/lua.js (members id_0..id_{n-1}),
// lib/redlockMutex/acquire.js + refresh.js (SET NX on each client, quorum).
const C = require('./_common');

C.run(async (cfg) => {
  const { Mutex, Semaphore, MultiSemaphore, RedlockMutex } = require('redis-semaphore');
  const Redis = require('ioredis');
  const version = C.versionOf('redis-semaphore');
  const clients = [];
  const mk = (db) => { const c = new Redis(C.ioredisOpts(cfg, { db })); clients.push(c); return c; };
  C.onStop(() => clients.forEach((c) => c.disconnect()));
  const client = mk(0);
  const base = { library: 'redis-semaphore', package: 'redis-semaphore', version };
  const lost = (what) => (err) => C.fail(`${what}: ${err.message}`);
  const refreshRule = (t) => ({ every_ms: Math.round(t * 0.8), rule: `setInterval refresh every round(0.8 * lockTimeout) = ${Math.round(t * 0.8)} ms (i.e. when 20 % of the lease is left); refresh PEXPIREs the key to the full lockTimeout` });

  // Mutex with the default lockTimeout (10 s, refresh every 8 s).
  const m1 = new Mutex(client, `${cfg.prefix}rs:mutex-default`, { onLockLost: lost('mutex-default') });
  await m1.acquire();
  C.made({ ...base, key: `mutex:${cfg.prefix}rs:mutex-default`, type: 'string', kind: 'mutex', owner: m1.identifier,
    owner_meaning: 'random UUID v4 (crypto.randomUUID()) per Mutex instance', lease_ms: 10000, renewal: refreshRule(10000) });

  // Mutex with a 3 s lease (refresh every 2.4 s).
  const m2 = new Mutex(client, `${cfg.prefix}rs:mutex-short`, { lockTimeout: 3000, onLockLost: lost('mutex-short') });
  await m2.acquire();
  C.made({ ...base, key: `mutex:${cfg.prefix}rs:mutex-short`, type: 'string', kind: 'mutex', owner: m2.identifier,
    owner_meaning: 'random UUID v4 (crypto.randomUUID()) per Mutex instance', lease_ms: 3000, renewal: refreshRule(3000) });

  // Semaphore limit 3, two holders, 5 s lease.
  const semName = `${cfg.prefix}rs:sem`;
  const s1 = new Semaphore(client, semName, 3, { lockTimeout: 5000, onLockLost: lost('sem 1') });
  const s2 = new Semaphore(client, semName, 3, { lockTimeout: 5000, onLockLost: lost('sem 2') });
  await s1.acquire();
  await s2.acquire();
  C.made({ ...base, key: `semaphore:${semName}`, type: 'zset', kind: 'semaphore', owner: s1.identifier,
    owners: [s1.identifier, s2.identifier],
    owner_meaning: 'ZSET member = holder UUID v4 (crypto.randomUUID()), score = ms timestamp of its last acquire/refresh; the limit is NOT stored in Redis',
    lease_ms: 5000, renewal: refreshRule(5000), permits_total: 3, permits_held: 2 });

  // MultiSemaphore limit 5, one holder taking 2 permits (members <id>_0, <id>_1), default lease.
  const msName = `${cfg.prefix}rs:multi`;
  const ms = new MultiSemaphore(client, msName, 5, 2, { onLockLost: lost('multi') });
  await ms.acquire();
  C.made({ ...base, key: `semaphore:${msName}`, type: 'zset', kind: 'semaphore', owner: `${ms.identifier}_0`,
    owners: [`${ms.identifier}_0`, `${ms.identifier}_1`],
    owner_meaning: 'ZSET members <holder UUID v4>_<i> for i in 0..permits-1 (one member per permit), score = ms timestamp of last acquire/refresh; the limit is NOT stored',
    lease_ms: 10000, renewal: refreshRule(10000), permits_total: 5, permits_held: 2 });

  // RedlockMutex on one client (quorum 1 of 1), 4 s lease.
  const r1 = new RedlockMutex([client], `${cfg.prefix}rs:redlock-one`, { lockTimeout: 4000, onLockLost: lost('redlock-one') });
  await r1.acquire();
  C.made({ ...base, key: `mutex:${cfg.prefix}rs:redlock-one`, type: 'string', kind: 'mutex', owner: r1.identifier,
    owner_meaning: 'random UUID v4 per RedlockMutex instance, same value on every Redis node', lease_ms: 4000, renewal: refreshRule(4000) });

  // RedlockMutex on three "nodes" = databases 0, 1, 2 of this server (quorum 2 of 3), 6 s lease.
  const nodes = [client, mk(1), mk(2)];
  const r3 = new RedlockMutex(nodes, `${cfg.prefix}rs:redlock-three`, { lockTimeout: 6000, onLockLost: lost('redlock-three') });
  await r3.acquire();
  const k3 = `mutex:${cfg.prefix}rs:redlock-three`;
  for (const db of [0, 1, 2]) {
    C.made({ ...base, key: k3, db, type: 'string', kind: 'mutex', owner: r3.identifier,
      owner_meaning: 'random UUID v4 per RedlockMutex instance, same value on every Redis node (here: db 0, 1 and 2 of one server)',
      lease_ms: 6000, renewal: refreshRule(6000), companions: [0, 1, 2].filter((d) => d !== db).map((d) => `db${d}:${k3}`) });
  }
});
