'use strict';
// redlock-universal (SimpleLock / LockManager batch) on an ioredis client.
// Source read: node_modules/redlock-universal/dist/index.cjs: generateLockValue() (16 random
// bytes, hex); IoredisAdapter.setNX (SET key value PX ttl NX); BATCH_ACQUIRE_SCRIPT (one
// value per key, keys sorted); ATOMIC_EXTEND_SCRIPT (refuses when PTTL < safety buffer, else
// PEXPIRE ttl if the value matches); executeWithAutoExtension(): extends when
// AUTO_EXTENSION_THRESHOLD_RATIO = 0.2 of the ttl is left (at 80 % elapsed since the last
// extension), never sooner than MIN_EXTENSION_INTERVAL 1000 ms; DEFAULTS.TTL = 30000.
const C = require('./_common');

C.run(async (cfg) => {
  const { createLock, IoredisAdapter, LockManager } = require('redlock-universal');
  const Redis = require('ioredis');
  const version = C.versionOf('redlock-universal');
  const client = new Redis(C.ioredisOpts(cfg));
  C.onStop(() => client.disconnect());
  const adapter = new IoredisAdapter(client);
  const base = { library: 'redlock-universal', package: 'redlock-universal', version, type: 'string', kind: 'mutex' };
  const meaning = 'random 16-byte hex token (crypto.randomFillSync), one per key';
  const rule = (ttl) => ({ every_ms: Math.round(ttl * 0.8), rule: `using(): extends (PEXPIRE to the full ttl via ATOMIC_EXTEND_SCRIPT) when 20 % of the ttl is left, i.e. 80 % (${Math.round(ttl * 0.8)} ms) after the previous extension; minimum interval 1000 ms` });

  const longKey = `${cfg.prefix}rlu:long`;
  const long = createLock({ adapter, key: longKey, ttl: 600000 });
  const h = await long.acquire();
  C.made({ ...base, key: longKey, owner: h.value, owner_meaning: meaning, lease_ms: 600000, renewal: null });

  const held = (start) => new Promise((resolve, reject) => {
    start(async (signal) => {
      resolve();
      await new Promise(() => {
        signal.addEventListener('abort', () => C.fail(`redlock-universal lost a lock: ${signal.error && signal.error.message}`));
      });
    }).catch(reject);
  });

  const shortKey = `${cfg.prefix}rlu:using-5s`;
  await held((r) => createLock({ adapter, key: shortKey, ttl: 5000 }).using(r));
  C.made({ ...base, key: shortKey, owner: await client.get(shortKey), owner_meaning: meaning, lease_ms: 5000, renewal: rule(5000) });

  const defKey = `${cfg.prefix}rlu:using-default`;
  await held((r) => createLock({ adapter, key: defKey }).using(r));
  C.made({ ...base, key: defKey, owner: await client.get(defKey), owner_meaning: meaning, lease_ms: 30000, renewal: rule(30000) });

  const manager = new LockManager({ nodes: [adapter] });
  const batch = [`${cfg.prefix}rlu:batch:b`, `${cfg.prefix}rlu:batch:a`];
  await held((r) => manager.usingBatch(batch, r, { ttl: 6000 }));
  for (const k of batch) {
    C.made({ ...base, key: k, owner: await client.get(k), owner_meaning: `${meaning} (a batch gives every key its own token)`, lease_ms: 6000,
      renewal: rule(6000), companions: batch.filter((x) => x !== k) });
  }
});
