'use strict';
// @sesamecare-oss/redlock (maintained TypeScript fork of redlock v5) on ioredis.
// Source read: node_modules/@sesamecare-oss/redlock/src/scripts.ts (ACQUIRE/EXTEND/RELEASE
// scripts, each starting with redis.pcall("SELECT", db)) and src/index.ts (_random, acquire,
// extend, using -> queue()/extend(), defaultSettings.automaticExtensionThreshold = 500).
const C = require('./_common');

C.run(async (cfg) => {
  const { Redlock } = require('@sesamecare-oss/redlock');
  const Redis = require('ioredis');
  const version = C.versionOf('@sesamecare-oss/redlock');
  const client = new Redis(C.ioredisOpts(cfg));
  C.onStop(() => client.disconnect());
  const redlock = new Redlock([client], { retryCount: 3, retryDelay: 100 });
  redlock.on('error', () => {});
  const base = { library: '@sesamecare-oss/redlock', package: '@sesamecare-oss/redlock', version, type: 'string', kind: 'mutex' };
  const meaning = 'random 16-byte hex token (crypto.randomBytes(16)), one per lock, the same on every resource of the lock';
  const rule = (d) => `using() auto-extension: extends by the full duration when 500 ms (automaticExtensionThreshold) are left before the client-side expiry start+duration-drift (drift = 1 % of duration + 2 ms), i.e. every ${d - Math.round(0.01 * d) - 502} ms`;

  const longKey = `${cfg.prefix}sesame:long`;
  const long = await redlock.acquire([longKey], 600000);
  C.made({ ...base, key: longKey, owner: long.value, owner_meaning: meaning, lease_ms: 600000, renewal: null });

  const hold = (resources, duration) => new Promise((resolveHeld, rejectHeld) => {
    redlock.using(resources, duration, async (signal, context) => {
      resolveHeld(context.lock.value);
      await new Promise(() => {
        signal.addEventListener('abort', () => C.fail(`lost the lock on ${resources}: ${signal.error && signal.error.message}`));
      });
    }).catch(rejectHeld);
  });
  const multi = [`${cfg.prefix}sesame:using:a`, `${cfg.prefix}sesame:using:b`];
  const ownerM = await hold(multi, 6000);
  for (const k of multi) {
    C.made({ ...base, key: k, owner: ownerM, owner_meaning: meaning, lease_ms: 6000,
      renewal: { every_ms: 6000 - 62 - 500, rule: rule(6000) }, companions: multi.filter((x) => x !== k) });
  }
  const single = `${cfg.prefix}sesame:using:single`;
  const ownerS = await hold([single], 3000);
  C.made({ ...base, key: single, owner: ownerS, owner_meaning: meaning, lease_ms: 3000,
    renewal: { every_ms: 3000 - 32 - 500, rule: rule(3000) } });
});
