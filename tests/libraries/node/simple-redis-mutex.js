'use strict';
// simple-redis-mutex 3.x on a node-redis (v5+) client.
// Source read: node_modules/simple-redis-mutex/dist/index.js (getLockKey:
// `@simple-redis-mutex:lock-<name>`; value String(Math.random()); SET NX PX timeout,
// DEFAULT_TIMEOUT 30000; INCR '@simple-redis-mutex:fencing-tokens' per acquisition;
// release script DELs and PUBLISHes on '@simple-redis-mutex:locks-releases';
// release.refreshTimeout(): GET == value -> PEXPIRE timeout). No automatic refresh.
const C = require('./_common');

C.run(async (cfg) => {
  const { createClient } = require('redis');
  const { lock } = require('simple-redis-mutex');
  const version = C.versionOf('simple-redis-mutex');
  const client = createClient({ socket: { host: cfg.host, port: cfg.port, connectTimeout: 3000, reconnectStrategy: false } });
  client.on('error', (e) => C.fail(`redis: ${e.message}`));
  await client.connect();
  C.onStop(() => { try { client.destroy(); } catch (_) { /* ignore */ } });
  const base = { library: 'simple-redis-mutex', package: 'simple-redis-mutex', version, type: 'string', kind: 'mutex' };
  const meaning = 'String(Math.random()) per acquisition, e.g. "0.8312..." (not unique by construction)';
  const keyOf = (n) => `@simple-redis-mutex:lock-${n}`;
  const fence = '@simple-redis-mutex:fencing-tokens';

  const longName = `${cfg.prefix}srm:long`;
  const r1 = await lock(client, longName, { timeout: 600000, failAfter: 5000 });
  C.made({ ...base, key: keyOf(longName), owner: await client.get(keyOf(longName)), owner_meaning: meaning,
    lease_ms: 600000, renewal: null, fencing_token: r1.fencingToken, companions: [fence] });

  // Default timeout (30 s), kept alive by the holder calling release.refreshTimeout().
  const defName = `${cfg.prefix}srm:default`;
  const r2 = await lock(client, defName, { failAfter: 5000 });
  const t = setInterval(() => r2.refreshTimeout().catch((e) => C.fail(`refresh: ${e.message}`)), 10000);
  C.onStop(() => clearInterval(t));
  C.made({ ...base, key: keyOf(defName), owner: await client.get(keyOf(defName)), owner_meaning: meaning,
    lease_ms: 30000, renewal: { every_ms: 10000, rule: 'no automatic refresh; this holder calls release.refreshTimeout() (PEXPIRE to the full timeout if the value matches) every lease/3' },
    fencing_token: r2.fencingToken, companions: [fence] });
  C.notLock(fence, 'global fencing-token counter (INCR once per acquisition, no TTL), shared by every simple-redis-mutex lock, not a lock');
});
