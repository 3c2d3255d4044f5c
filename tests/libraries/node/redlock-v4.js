'use strict';
// redlock 4.x (mike-marcacci/node-redlock) on an ioredis client.
// Source read: node_modules/redlock4/redlock.js (lockScript / extendScript, _random, _lock).
// v4 has no automatic extension: holders call lock.extend(ttl) themselves.
const C = require('./_common');

C.run(async (cfg) => {
  const Redlock = require('redlock4');
  const Redis = require('ioredis');
  const version = C.versionOf('redlock4');
  const client = new Redis(C.ioredisOpts(cfg));
  C.onStop(() => client.disconnect());
  const redlock = new Redlock([client], { retryCount: 3, retryDelay: 100 });
  redlock.on('clientError', () => {});
  const base = { library: 'redlock (v4)', package: 'redlock', version, type: 'string', kind: 'mutex' };
  const meaning = 'random 16-byte hex token (crypto.randomBytes(16)), one per lock, the same on every resource of the lock';

  // 1. A long-lease single-resource lock (nothing renews it).
  const longKey = `${cfg.prefix}redlock4:long`;
  const long = await redlock.lock(longKey, 600000);
  C.made({ ...base, key: longKey, owner: long.value, owner_meaning: meaning, lease_ms: 600000, renewal: null });

  // 2. A multi-resource lock: one token on every key, set atomically by one Lua script.
  const multi = [`${cfg.prefix}redlock4:multi:a`, `${cfg.prefix}redlock4:multi:b`, `${cfg.prefix}redlock4:multi:c`];
  const ml = await redlock.lock(multi, 600000);
  for (const k of multi) {
    C.made({ ...base, key: k, owner: ml.value, owner_meaning: meaning, lease_ms: 600000, renewal: null,
      companions: multi.filter((x) => x !== k) });
  }

  // 3. A short lease kept alive the v4 way: the application calls lock.extend(ttl).
  const shortKey = `${cfg.prefix}redlock4:extended`;
  const leaseMs = 6000;
  let lock = await redlock.lock(shortKey, leaseMs);
  const owner = lock.value;
  const timer = setInterval(() => {
    lock.extend(leaseMs).then((l) => { lock = l; }).catch((e) => C.fail(`extend failed: ${e.message}`));
  }, leaseMs / 2);
  C.onStop(() => clearInterval(timer));
  C.made({ ...base, key: shortKey, owner, owner_meaning: meaning, lease_ms: leaseMs,
    renewal: { every_ms: leaseMs / 2, rule: 'no automatic extension in redlock v4; this holder calls lock.extend(6000) every lease/2 (extendScript re-SETs the value with PX)' } });
});
