'use strict';
// redis-lock 1.x (errorception/redis-lock) on a node-redis v4 client (it insists on "v4" in client).
// Source read: node_modules/redis-lock/index.js (key `lock.<name>`; value = Date.now() +
// timeout + 1, i.e. the expiry time in ms; SET PX timeout NX; DEFAULT_TIMEOUT 5000; release
// DELs only if the stored expiry is still in the future - no token check). No extension API.
const C = require('./_common');

C.run(async (cfg) => {
  const { createClient } = require('redis4');
  const redisLock = require('redis-lock');
  const version = C.versionOf('redis-lock');
  const client = createClient({ socket: { host: cfg.host, port: cfg.port, connectTimeout: 3000, reconnectStrategy: false } });
  client.on('error', (e) => C.fail(`redis: ${e.message}`));
  await client.connect();
  C.onStop(() => client.disconnect().catch(() => {}));
  const lock = redisLock(client);
  const base = { library: 'redis-lock', package: 'redis-lock', version, type: 'string', kind: 'mutex' };

  // redis-lock retries forever (every 50 ms) while the key is taken; the 20 s setup cap bounds it.
  const name = `${cfg.prefix}redis-lock:long`;
  await lock(name, 600000);
  const key = `lock.${name}`;
  const value = await client.get(key); // the API hides the stored value; read it back
  C.made({ ...base, key, owner: value, owner_meaning: 'not an owner token: the lock\'s expiry time in ms since the epoch (Date.now() + timeout + 1); any holder with the same key can release it',
    lease_ms: 600000, renewal: null });
});
