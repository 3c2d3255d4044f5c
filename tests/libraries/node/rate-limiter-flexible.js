'use strict';
// rate-limiter-flexible 11.4.0 (RateLimiterRedis on ioredis): rate-limiter counters, not locks, under keys
// that hold lock words. A library outside the catalog (issue 31): none of its keys may raise an alarm.
// Source read: node_modules/rate-limiter-flexible/lib/RateLimiterAbstract.js getKey: '<keyPrefix>:<key>'
// (keyPrefix 'rlflx' by default); RateLimiterRedis.js: consume() runs a Lua INCRBY key points and sets
// EX duration on the first hit, so the value is the points consumed so far, with the window as TTL; with
// blockDuration, going over the limit re-SETs the key to the consumed points with EX blockDuration.
const C = require('./_common');

C.run(async (cfg) => {
  const { RateLimiterRedis } = require('rate-limiter-flexible');
  const Redis = require('ioredis');
  const client = new Redis(C.ioredisOpts(cfg));
  C.onStop(() => client.disconnect());
  const prefix = `${cfg.prefix}rlflx`;
  const cases = [
    // [case, key, points, duration s, blockDuration s, consumed]
    ['login-lock', 'login-lock:user-9', 5, 3600, 0, 3],
    ['mutex-api', 'mutex-api:10.0.0.7', 100, 60, 0, 12],
    ['lease-renewals', 'lease-renewals:tenant-4', 2, 60, 900, 3],
  ];
  for (const [name, key, points, duration, blockDuration, consumed] of cases) {
    const limiter = new RateLimiterRedis({ storeClient: client, keyPrefix: prefix, points, duration,
      blockDuration });
    await client.del(`${prefix}:${key}`); // a killed earlier run's
    for (let i = 0; i < consumed; i++) {
      try {
        await limiter.consume(key);
      } catch (res) {
        if (res instanceof Error) throw res;
        if (i < points) throw new Error(`rate-limiter-flexible refused hit ${i + 1} of ${points}`);
      }
    }
    const full = `${prefix}:${key}`;
    if (!(await client.exists(full))) throw new Error(`rate-limiter-flexible did not write ${full}`);
    C.notLock(full, `rate-limiter-flexible RateLimiterRedis counter: ${await client.get(full)} points consumed, `
      + `${blockDuration ? 'blocked for blockDuration' : 'window'} as TTL; nobody holds it`,
    { type: 'string', case: name });
  }
});
