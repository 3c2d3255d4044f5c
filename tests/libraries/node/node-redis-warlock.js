'use strict';
// node-redis-warlock (thedeveloper/warlock; the npm name "warlock" is an unrelated package)
// on a node_redis 3 client.
// Source read: node_modules/node-redis-warlock/lib/warlock.js (makeKey: `${key}:lock`;
// lock(): id = base64 of a 16-byte UUID v1 buffer, SET key id PX ttl NX; touch():
// parityRelock), lib/lua/parityRelock.lua (GET == id -> SET id PX ttl XX),
// lib/lua/parityDel.lua. No automatic extension.
const C = require('./_common');

C.run(async (cfg) => {
  const redis = require('redis3');
  const Warlock = require('node-redis-warlock');
  const version = C.versionOf('node-redis-warlock');
  const client = redis.createClient({ host: cfg.host, port: cfg.port, connect_timeout: 3000,
    retry_strategy: (o) => (o.attempt > 3 ? new Error('redis unreachable') : 200) });
  client.on('error', (e) => C.fail(`redis: ${e.message}`));
  C.onStop(() => client.end(false));
  const warlock = Warlock(client);
  const lock = (key, ttl) => new Promise((resolve, reject) => {
    warlock.lock(key, ttl, (err, unlock, id) => {
      if (err) return reject(err);
      if (typeof unlock !== 'function') return reject(new Error(`lock ${key} is taken`));
      return resolve(id);
    });
  });
  const base = { library: 'warlock (node-redis-warlock)', package: 'node-redis-warlock', version, type: 'string', kind: 'mutex' };
  const meaning = 'UUID v1 written as 16 raw bytes and base64-encoded (24 chars ending in "==")';

  const longName = `${cfg.prefix}warlock:long`;
  const longId = await lock(longName, 600000);
  C.made({ ...base, key: warlock.makeKey(longName), owner: longId, owner_meaning: meaning, lease_ms: 600000, renewal: null });

  const shortName = `${cfg.prefix}warlock:touched`;
  const shortId = await lock(shortName, 6000);
  const t = setInterval(() => warlock.touch(shortName, shortId, 6000).then((r) => {
    if (r !== 'OK') C.fail(`touch failed: ${r}`);
  }).catch((e) => C.fail(`touch: ${e.message}`)), 3000);
  C.onStop(() => clearInterval(t));
  C.made({ ...base, key: warlock.makeKey(shortName), owner: shortId, owner_meaning: meaning, lease_ms: 6000,
    renewal: { every_ms: 3000, rule: 'no automatic extension in warlock; this holder calls warlock.touch(key, id, 6000) every lease/2 (parityRelock: SET id PX ttl XX if the value matches)' } });
});
