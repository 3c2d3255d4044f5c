'use strict';
// redislock 1.x (danielstjules) on a node_redis 3 client.
// Source read: node_modules/redislock/lib/lock.js (this._id = uuid.v1(); Lock._defaults.timeout
// = 10000; _attemptLock: SET key id PX timeout NX; extend(): Lua pexpireifequal;
// _setupClient promisifies get/set/watch). No automatic extension.
const C = require('./_common');

C.run(async (cfg) => {
  const redislock = require('redislock');
  const redis = require('redis3');
  const version = C.versionOf('redislock');
  const client = redis.createClient({ host: cfg.host, port: cfg.port, connect_timeout: 3000,
    retry_strategy: (o) => (o.attempt > 3 ? new Error('redis unreachable') : 200) });
  client.on('error', (e) => C.fail(`redis: ${e.message}`));
  C.onStop(() => client.end(false));
  const base = { library: 'redislock', package: 'redislock', version, type: 'string', kind: 'mutex' };
  const meaning = 'UUID v1 (time-based, uuid.v1()) made per Lock object';

  const longKey = `${cfg.prefix}redislock:long`;
  const long = redislock.createLock(client, { timeout: 600000, retries: 0 });
  await long.acquire(longKey);
  C.made({ ...base, key: longKey, owner: long._id, owner_meaning: meaning, lease_ms: 600000, renewal: null });

  const defKey = `${cfg.prefix}redislock:default`;
  const def = redislock.createLock(client, { retries: 0 });
  await def.acquire(defKey);
  const t = setInterval(() => def.extend(10000).catch((e) => C.fail(`extend: ${e.message}`)), 5000);
  C.onStop(() => clearInterval(t));
  C.made({ ...base, key: defKey, owner: def._id, owner_meaning: meaning, lease_ms: 10000,
    renewal: { every_ms: 5000, rule: 'no automatic extension in redislock; this holder calls lock.extend(10000) every lease/2' } });
});
