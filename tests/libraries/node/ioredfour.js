'use strict';
// ioredfour 1.4 (a fork of redfour, the same keys): a binary semaphore with a fencing index.
// Source read: node_modules/ioredfour/lib/scripts.js (acquire: if the key does not exist, INCR
// <namespace>index, HMSET <namespace>:<id> index <n>, PEXPIRE ttl; extend: HGET index == n -> PEXPIRE;
// release: DEL and PUBLISH <namespace>-release <key>), lib/ioredfour.js (namespace default 'lock'; every
// Lock object SUBSCRIBEs to <namespace>-release when it is made, waiting or not; waitAcquireLock polls
// again when the holder's TTL is over or a release is published). No automatic extension.
const C = require('./_common');

C.run(async (cfg) => {
  const Lock = require('ioredfour');
  const Redis = require('ioredis');
  const version = C.versionOf('ioredfour');
  const reader = new Redis(C.ioredisOpts(cfg));
  const locks = [];
  const closers = [() => reader.disconnect()];
  C.onStop(() => closers.forEach((f) => f()));
  const mkLock = (namespace) => {
    const l = new Lock({ redis: { host: cfg.host, port: cfg.port, connectTimeout: 3000 }, namespace });
    closers.push(() => { l._redisConnection.disconnect(); l._redisSubscriber.disconnect(); });
    locks.push(l);
    return l;
  };
  const base = { library: 'ioredfour', package: 'ioredfour', version, type: 'hash', kind: 'mutex', owner_field: 'index' };
  const meaning = 'no owner is stored: the hash holds the fencing index (INCR <namespace>index) the holder must show to extend or release';

  // The default namespace ('lock'), a 10 minute lease, and a second Lock object waiting for it.
  const holder = mkLock(undefined);
  const a = await holder.acquireLock(`${cfg.prefix}nightly-export`, 600000);
  if (!a.success) throw new Error('acquireLock failed');
  const waiter = mkLock(undefined);
  waiter.waitAcquireLock(`${cfg.prefix}nightly-export`, 600000, 0)
    .then((l) => { if (l.success) C.fail('ioredfour: the waiter got the lock while it was held'); })
    .catch((e) => C.fail(`waitAcquireLock: ${e.message}`));
  C.made({ ...base, key: `lock:${cfg.prefix}nightly-export`, owner: String(a.index), owner_meaning: meaning,
    lease_ms: 600000, renewal: null, waiters_untraceable: 1 });
  C.notLock('lockindex', 'ioredfour fencing index counter (INCR), shared by every lock of the namespace');

  // Its own namespace, a 6 s lease that the application extends every 3 s.
  const own = mkLock(`${cfg.prefix}jobs`);
  const b = await own.acquireLock('sync', 6000);
  if (!b.success) throw new Error('acquireLock failed');
  const t = setInterval(() => own.extendLock(b, 6000).catch((e) => C.fail(`extendLock: ${e.message}`)), 3000);
  closers.unshift(() => clearInterval(t));
  C.made({ ...base, key: `${cfg.prefix}jobs:sync`, owner: String(b.index), owner_meaning: meaning, lease_ms: 6000,
    renewal: { every_ms: 3000, rule: 'no automatic extension in ioredfour; this holder calls extendLock(lock, 6000) every 3 s' } });
  C.notLock(`${cfg.prefix}jobsindex`, 'ioredfour fencing index counter (INCR), shared by every lock of the namespace');
});
