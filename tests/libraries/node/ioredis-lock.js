'use strict';
// ioredis-lock 4.x (makeomatic fork of redislock) on an ioredis 4 client.
// Source read: node_modules/ioredis-lock/lib/lock.js (this._id = uuid.v1(); _attemptLock:
// SET key id PX timeout NX; extend(): pexpireifequal; Lock._defaults.timeout = 10000),
// lib/scripts.js (delifequal / pexpireifequal). No automatic extension.
const C = require('./_common');

C.run(async (cfg) => {
  const redislock = require('ioredis-lock');
  const Redis = require('ioredis4');
  const version = C.versionOf('ioredis-lock');
  const client = new Redis(C.ioredisOpts(cfg));
  C.onStop(() => client.disconnect());
  const base = { library: 'ioredis-lock', package: 'ioredis-lock', version, type: 'string', kind: 'mutex' };
  const meaning = 'UUID v1 (time-based, uuid.v1()) made per Lock object';

  const longKey = `${cfg.prefix}ioredis-lock:long`;
  const long = redislock.createLock(client, { timeout: 600000, retries: 0 });
  await long.acquire(longKey);
  C.made({ ...base, key: longKey, owner: long._id, owner_meaning: meaning, lease_ms: 600000, renewal: null });

  // Default timeout (10 s), kept alive by the holder calling lock.extend() every 5 s.
  const defKey = `${cfg.prefix}ioredis-lock:default`;
  const def = redislock.createLock(client, { retries: 0 });
  await def.acquire(defKey);
  const t = setInterval(() => def.extend().catch((e) => C.fail(`extend: ${e.message}`)), 5000);
  C.onStop(() => clearInterval(t));
  C.made({ ...base, key: defKey, owner: def._id, owner_meaning: meaning, lease_ms: 10000,
    renewal: { every_ms: 5000, rule: 'no automatic extension in ioredis-lock; this holder calls lock.extend() (PEXPIRE to the 10 s default timeout if the value matches) every lease/2' } });
});
