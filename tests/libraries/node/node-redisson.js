'use strict';
// node-redisson (a Node port of Java Redisson's RLock) - it makes its own ioredis clients.
// Source read: node_modules/node-redisson/dist/executor/CommandExecutor.js (Lua rTryLockInner:
// HINCRBY <name> <field> 1 + PEXPIRE; rRenewExpiration: PEXPIRE if HEXISTS; executor id =
// randomUUID()), dist/locks/RedissonBaseLock.js (field = `${executorId}:${clientId}`,
// clientId = randomUUID() per lock object; watchdog renewExpiration(): setTimeout of
// lockWatchdogTimeout / 3, PEXPIRE to lockWatchdogTimeout; channel
// `redisson_lock__channel:{<name>}`; transient `redisson_unlock_latch:{<name>}:<requestId>`),
// dist/locks/RedissonLock.js (an explicit leaseTime disables the watchdog),
// dist/Redisson.js (lockWatchdogTimeout default 30000n, eventAdapter 'pubsub').
const C = require('./_common');

C.run(async (cfg) => {
  const { Redisson } = require('node-redisson');
  const version = C.versionOf('node-redisson');
  const mk = (extra) => {
    const r = new Redisson({ redis: { options: { host: cfg.host, port: cfg.port, connectTimeout: 3000, retryStrategy: (n) => (n > 3 ? null : 200) } }, ...extra });
    C.onStop(() => { r.redis.disconnect(); r.commandExecutor.subscribeRedis.disconnect(); });
    return r;
  };
  const base = { library: 'node-redisson', package: 'node-redisson', version, type: 'hash', kind: 'mutex' };
  const meaning = 'HASH field <Redisson instance UUID v4>:<lock-object clientId UUID v4> (Java Redisson uses <uuid>:<threadId>); the field value is the reentrancy count';
  const wd = (ms) => ({ every_ms: Math.floor(ms / 3), rule: `watchdog: setTimeout(lockWatchdogTimeout / 3 = ${Math.floor(ms / 3)} ms) then PEXPIRE to lockWatchdogTimeout (${ms} ms) if the field still exists; re-armed after each success` });

  // 1. Default watchdog (30 s), locked twice (reentrant count 2).
  const r30 = mk({});
  const nameDef = `${cfg.prefix}redisson:default`;
  const l1 = r30.getLock(nameDef);
  await l1.lock();
  await l1.lock();
  const f1 = l1.getClientName(l1.clientId);
  C.made({ ...base, key: nameDef, owner: f1, owner_meaning: meaning, lease_ms: 30000, renewal: wd(30000), reentrancy: 2 });

  // 2. Short watchdog (6 s) on another Redisson instance.
  const r6 = mk({ lockWatchdogTimeout: 6000n });
  const nameShort = `${cfg.prefix}redisson:watchdog-6s`;
  const l2 = r6.getLock(nameShort);
  await l2.lock();
  C.made({ ...base, key: nameShort, owner: l2.getClientName(l2.clientId), owner_meaning: meaning, lease_ms: 6000, renewal: wd(6000), reentrancy: 1 });

  // 3. Explicit lease time (10 min): no watchdog.
  const nameLease = `${cfg.prefix}redisson:lease`;
  const l3 = r30.getLock(nameLease);
  await l3.lock(600000n);
  C.made({ ...base, key: nameLease, owner: l3.getClientName(l3.clientId), owner_meaning: meaning, lease_ms: 600000, renewal: null, reentrancy: 1 });
});
