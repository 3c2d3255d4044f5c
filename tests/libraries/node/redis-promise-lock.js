'use strict';
// redis-promise-lock 1.0 on a node-redis 4 client.
// Source read: node_modules/redis-promise-lock/lib/src/lock.js (getRedisKey: 'redis-promise-lock:' +
// lockName; acquireLock: payload JSON.stringify({lockedSince: new Date().toISOString()}); applyLock: SETNX
// key payload, then EXPIRE key ttl unless ttl is 0; ttl default 3 s; retries every retryDelay (100 ms) up
// to retryLimit (10) times). No owner is stored and there is no extension.
const C = require('./_common');

C.run(async (cfg) => {
  const { Lock } = require('redis-promise-lock');
  const { createClient } = require('redis4');
  const version = C.versionOf('redis-promise-lock');
  const client = createClient({ socket: { host: cfg.host, port: cfg.port, connectTimeout: 3000, reconnectStrategy: false } });
  client.on('error', (e) => C.fail(`redis: ${e.message}`));
  await client.connect();
  C.onStop(() => client.disconnect().catch(() => {}));
  const lock = new Lock(client);
  const base = { library: 'redis-promise-lock', package: 'redis-promise-lock', version, type: 'string', kind: 'mutex' };
  const meaning = 'JSON {"lockedSince": <ISO time>}: when it was taken; it names no holder';

  for (const [name, ttl] of [[`${cfg.prefix}orders-sync`, 120], [`${cfg.prefix}nightly`, 0]]) {
    if (!(await lock.acquireLock(name, { ttl, retryLimit: 1 }))) throw new Error(`acquireLock(${name}) failed`);
    const key = lock.getRedisKey(name);
    C.made({ ...base, key, owner: await client.get(key), owner_meaning: meaning,
      lease_ms: ttl ? ttl * 1000 : null, renewal: null });
  }
});
