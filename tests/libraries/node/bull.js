'use strict';
// Bull v4 job locks: a queue processing long-running jobs holds `bull:<queue>:<jobId>:lock`.
// Source read: node_modules/bull/lib/queue.js (this.token = uuid.v4() per Queue instance,
// settings.lockDuration 30000, lockRenewTime = lockDuration / 2, lockExtender(): a timer of
// lockRenewTime then scripts.extendLock(lockDuration), re-armed after each success),
// lib/commands/moveToActive-8.lua (SET <jobKey>:lock token PX lockDuration),
// lib/commands/extendLock-2.lua (GET == token -> SET token PX duration; SREM stalled),
// lib/commands/moveStalledJobsToWait-7.lua (stalled-check / stalled set).
const C = require('./_common');

const WHY = {
  id: 'job id counter (INCR), not a lock',
  wait: 'list of waiting job ids, not a lock',
  active: 'list of active job ids (their locks are the :<id>:lock keys), not a lock',
  'stalled-check': 'stalled-checker throttle: SET <timestamp> PX stalledInterval; no owner, not a lock',
  stalled: 'set of active job ids suspected stalled since the last check (removed when the lock is extended), not a lock',
  completed: 'zset of completed job ids, not a lock',
  failed: 'zset of failed job ids, not a lock',
  delayed: 'zset of delayed job ids, not a lock',
  priority: 'zset of job priorities, not a lock',
  paused: 'list of paused job ids, not a lock',
  meta: 'queue meta hash, not a lock',
  'meta-paused': 'queue paused flag, not a lock',
  limiter: 'rate limiter counter, not a lock',
  repeat: 'repeatable jobs zset, not a lock',
};

C.run(async (cfg) => {
  const Queue = require('bull');
  const Redis = require('ioredis');
  const version = C.versionOf('bull');
  const reader = new Redis(C.ioredisOpts(cfg));
  const closers = [() => reader.disconnect()];
  C.onStop(() => closers.forEach((f) => f()));
  const redis = { host: cfg.host, port: cfg.port, connectTimeout: 3000 };

  async function runQueue(name, jobs, concurrency, settings) {
    const queue = new Queue(name, { redis, settings });
    closers.push(() => queue.clients && queue.clients.forEach((c) => c.disconnect()));
    queue.on('error', (e) => C.fail(`bull queue error: ${e.message}`));
    const started = [];
    let wake;
    const allStarted = new Promise((r) => { wake = r; });
    await queue.isReady();
    for (let i = 0; i < jobs; i++) await queue.add({ n: i });
    queue.process(concurrency, async (job) => {
      started.push({ id: String(job.id), token: queue.token });
      if (started.length === Math.min(concurrency, jobs)) wake();
      await new Promise(() => {}); // never finishes: the lock is renewed forever
    }).catch((e) => C.fail(`process: ${e.message}`));
    await allStarted;
    return { queue, started };
  }

  const ctx = [];
  const shortQ = `${cfg.prefix}bull-short`;
  ctx.push({ q: shortQ, lease: 6000, renew: 3000, ...(await runQueue(shortQ, 3, 2, { lockDuration: 6000, stalledInterval: 5000 })) });
  const defQ = `${cfg.prefix}bull-default`;
  ctx.push({ q: defQ, lease: 30000, renew: 15000, ...(await runQueue(defQ, 1, 1, {})) });

  for (const c of ctx) {
    const prefix = `bull:${c.q}:`;
    const lockKeys = new Set();
    const hashes = new Set();
    for (const s of c.started) {
      const key = `${prefix}${s.id}:lock`;
      lockKeys.add(key);
      hashes.add(`${prefix}${s.id}`);
      C.made({
        library: 'Bull', package: 'bull', version, key, type: 'string', kind: 'job-lock',
        owner: s.token,
        owner_meaning: 'queue token: UUID v4 made once per Queue instance (the same for every job that instance processes)',
        lease_ms: c.lease,
        renewal: { every_ms: c.renew, rule: `per-job timer: every lockRenewTime (default lockDuration/2 = ${c.renew} ms) extendLock re-SETs token PX lockDuration and SREMs the job from the stalled set; re-armed only after a successful extension` },
        queue: c.q, job_id: s.id,
        companions: [`${prefix}${s.id}`, `${prefix}active`, `${prefix}stalled`],
      });
    }
    const present = await C.scanKeys(reader, `${prefix}*`);
    const listed = new Set();
    for (const k of present) {
      if (lockKeys.has(k) || hashes.has(k)) continue;
      const suffix = k.slice(prefix.length);
      C.notLock(k, WHY[suffix] || (/^[^:]+$/.test(suffix) ? 'job hash of a job that is not active, not a lock' : 'Bull queue bookkeeping key, not a lock'));
      listed.add(k);
    }
    for (const s of ['stalled', 'stalled-check', 'id', 'wait', 'active']) {
      const k = prefix + s;
      if (!listed.has(k)) C.notLock(k, WHY[s], { may_be_absent: true });
    }
  }
});
