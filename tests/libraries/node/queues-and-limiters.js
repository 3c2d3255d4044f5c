'use strict';
// Libraries that write no lock but keys that a lock scanner may take for one: bee-queue (a queue whose
// stalled-job check throttles itself with a PX key), Bottleneck (a distributed rate limiter and
// concurrency limiter) and rolling-rate-limiter (a sliding-window zset of uuid v4 members). The names the
// application chooses here contain lock words, as they do in real code ("rate limit the /lock endpoint").
// Source read: node_modules/bee-queue/lib/queue.js (keys <prefix>:<queue>:id|jobs|waiting|active|stalling|
// stallBlock…), lib/lua/checkStalledJobs.lua (SET stallBlock 1 PX stallInterval NX); bottleneck/lib/Scripts.js
// (b_<id>_settings, _job_weights, _job_expirations, _job_clients, _client_running, _client_num_queued,
// _client_last_registered, _client_last_seen); rolling-rate-limiter/lib/index.js (getTimestamps: ZADD
// <namespace><id> <now µs> uuid.v4(), EXPIRE interval).
const C = require('./_common');

C.run(async (cfg) => {
  const BeeQueue = require('bee-queue');
  const Bottleneck = require('bottleneck');
  const { IORedisRateLimiter } = require('rolling-rate-limiter');
  const Redis = require('ioredis');
  const reader = new Redis(C.ioredisOpts(cfg));
  const closers = [() => reader.disconnect()];
  C.onStop(() => closers.forEach((f) => { try { f(); } catch (_) { /* stopping */ } }));

  // bee-queue: a queue named after what it does (locking accounts), one job running for ever.
  const bqPrefix = `${cfg.prefix}bq`;
  const queue = new BeeQueue('account-lock', { prefix: bqPrefix, redis: { host: cfg.host, port: cfg.port },
    stallInterval: 5000, activateDelayedJobs: true });
  closers.push(() => queue.close(0).catch(() => {}));
  queue.on('error', (e) => C.fail(`bee-queue: ${e.message}`));
  await queue.ready();
  let running;
  const started = new Promise((r) => { running = r; });
  queue.process(async () => { running(); await new Promise(() => {}); });
  await queue.createJob({ account: 1001 }).save();
  await queue.createJob({ account: 1002 }).delayUntil(Date.now() + 3600000).save();
  await started;
  for (const key of await C.scanKeys(reader, `${bqPrefix}:*`)) C.notLock(key, 'bee-queue queue data or its stalled-check throttle, not a lock');

  // Bottleneck clustered on Redis: maxConcurrent 1 per limiter id, one job running for ever.
  const limiter = new Bottleneck({ id: `${cfg.prefix}mutex-limiter`, datastore: 'ioredis', clearDatastore: true,
    maxConcurrent: 1, minTime: 50, clientOptions: { host: cfg.host, port: cfg.port } });
  closers.push(() => limiter.disconnect(false));
  limiter.on('error', (e) => C.fail(`bottleneck: ${e.message}`));
  await limiter.ready();
  let scheduled;
  const inJob = new Promise((r) => { scheduled = r; });
  limiter.schedule(() => { scheduled(); return new Promise(() => {}); }).catch(() => {});
  await inJob;
  for (const key of await C.scanKeys(reader, `b_${cfg.prefix}mutex-limiter_*`)) C.notLock(key, 'Bottleneck limiter state (settings, running jobs, clients), not a lock');

  // rolling-rate-limiter: three requests to the "lock account" API within the window.
  const rl = new IORedisRateLimiter({ client: reader, namespace: `${cfg.prefix}ratelimit:lock-api:`, interval: 600000, maxInInterval: 10 });
  for (let i = 0; i < 3; i++) await rl.limit('10.1.2.3');
  C.notLock(`${cfg.prefix}ratelimit:lock-api:10.1.2.3`, 'rolling-rate-limiter window: zset of uuid v4 → request time in µs, not a lock');
});
