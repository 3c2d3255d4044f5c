'use strict';
// redlock 5.0.0-beta.2 (mike-marcacci/node-redlock) on an ioredis client.
// Source read: node_modules/redlock5/dist/cjs/index.js (ACQUIRE_SCRIPT / EXTEND_SCRIPT,
// _random, acquire, extend, using -> queue()/extend()).
// using() re-extends when lock.expiration - now <= automaticExtensionThreshold (500 ms),
// where lock.expiration = start + duration - drift, drift = round(0.01 * duration) + 2.
const C = require('./_common');

C.run(async (cfg) => {
  const Redlock = require('redlock5').default;
  const Redis = require('ioredis');
  const version = C.versionOf('redlock5');
  const client = new Redis(C.ioredisOpts(cfg));
  C.onStop(() => client.disconnect());
  const redlock = new Redlock([client], { retryCount: 3, retryDelay: 100 });
  const base = { library: 'redlock (v5 beta)', package: 'redlock', version, type: 'string', kind: 'mutex' };
  const meaning = 'random 16-byte hex token (crypto.randomBytes(16)), one per lock, the same on every resource of the lock';
  const rule = (d) => `using() auto-extension: extends by the full duration when ${500} ms (automaticExtensionThreshold) are left before the client-side expiry start+duration-drift (drift = 1 % of duration + 2 ms), i.e. every duration - 0.01*duration - 502 ms = ${d - Math.round(0.01 * d) - 502} ms`;

  // 1. Long-lease acquire() of one resource (no extension).
  const longKey = `${cfg.prefix}redlock5:long`;
  const long = await redlock.acquire([longKey], 600000);
  C.made({ ...base, key: longKey, owner: long.value, owner_meaning: meaning, lease_ms: 600000, renewal: null });

  // 2. using() on two resources with a 5 s duration: auto-extended while the routine runs.
  // 3. using() on one resource with 8 s.
  const holds = [];
  const hold = (resources, duration) => new Promise((resolveHeld, rejectHeld) => {
    redlock.using(resources, duration, async (signal) => {
      resolveHeld();
      await new Promise((resolve) => {
        signal.addEventListener('abort', () => C.fail(`redlock lost the lock on ${resources}: ${signal.error && signal.error.message}`));
        holds.push(resolve); // never resolved: the routine runs until the process exits
      });
    }).catch(rejectHeld);
  });
  const multi = [`${cfg.prefix}redlock5:using:a`, `${cfg.prefix}redlock5:using:b`];
  await hold(multi, 5000);
  const owner = await client.get(multi[0]); // using() does not expose the token; read it back
  for (const k of multi) {
    C.made({ ...base, key: k, owner, owner_meaning: meaning, lease_ms: 5000,
      renewal: { every_ms: 5000 - 52 - 500, rule: rule(5000) }, companions: multi.filter((x) => x !== k) });
  }
  const single = `${cfg.prefix}redlock5:using:single`;
  await hold([single], 8000);
  C.made({ ...base, key: single, owner: await client.get(single), owner_meaning: meaning, lease_ms: 8000,
    renewal: { every_ms: 8000 - 82 - 500, rule: rule(8000) } });
});
