'use strict';
// @microfleet/ioredis-lock 6.x (ESM, maintained successor of ioredis-lock) on ioredis 5.
// Source read: node_modules/@microfleet/ioredis-lock/lib/lock.js (_id = randomUUID();
// config.timeout default 10000; _attemptLock: SET key id PX timeout NX; extend():
// pexpireifequal), lib/scripts.js. No automatic extension.
const C = require('./_common');

C.run(async (cfg) => {
  const { createLock } = await import('@microfleet/ioredis-lock');
  const Redis = require('ioredis');
  const version = C.versionOf('@microfleet/ioredis-lock');
  const client = new Redis(C.ioredisOpts(cfg));
  C.onStop(() => client.disconnect());
  const base = { library: '@microfleet/ioredis-lock', package: '@microfleet/ioredis-lock', version, type: 'string', kind: 'mutex' };
  const meaning = 'random UUID v4 (crypto.randomUUID()) made per Lock object';

  const longKey = `${cfg.prefix}mf-lock:long`;
  const long = createLock(client, { timeout: 600000, retries: 0 });
  await long.acquire(longKey);
  C.made({ ...base, key: longKey, owner: long._id, owner_meaning: meaning, lease_ms: 600000, renewal: null });

  const defKey = `${cfg.prefix}mf-lock:default`;
  const def = createLock(client, { retries: 0 });
  await def.acquire(defKey);
  const t = setInterval(() => def.extend().catch((e) => C.fail(`extend: ${e.message}`)), 5000);
  C.onStop(() => clearInterval(t));
  C.made({ ...base, key: defKey, owner: def._id, owner_meaning: meaning, lease_ms: 10000,
    renewal: { every_ms: 5000, rule: 'no automatic extension; this holder calls lock.extend() (PEXPIRE to the 10 s default timeout if the value matches) every lease/2' } });
});
