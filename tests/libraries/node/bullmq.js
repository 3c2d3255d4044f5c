'use strict';
// BullMQ job locks: a Worker processing long-running jobs holds `bull:<queue>:<jobId>:lock`.
// Source read: node_modules/bullmq/dist/cjs/classes/worker.js (this.id = randomUUID(),
// token = `${this.id}:${tokenPostfix++}`, lockDuration 30000 default, lockRenewTime =
// lockDuration / 2), classes/lock-manager.js (startLockExtenderTimer: a timer every
// lockRenewTime / 2 extends every tracked job whose last extension is older than
// lockRenewTime / 2), commands/includes/prepareJobForProcessing.lua (SET lock token PX
// lockDuration), commands/extendLocks-1.lua (GET == token -> SET token PX lockDuration;
// SREM stalled), commands/moveStalledJobsToWait-9.lua (stalled-check / stalled set),
// classes/queue-keys.js (key names), classes/queue-base.js (queue names cannot contain ':').
const C = require('./_common');

const WHY = {
  id: 'job id counter (INCR), not a lock',
  wait: 'list of waiting job ids, not a lock',
  active: 'list of active job ids (their locks are the :<id>:lock keys), not a lock',
  meta: 'queue metadata hash (opts.maxLenEvents, version), not a lock',
  events: 'event stream (XADD added/waiting/active/...), not a lock',
  marker: 'marker zset that wakes blocked workers (BZPOPMIN), not a lock',
  'stalled-check': 'stalled-checker throttle: SET <timestamp> PX stalledInterval by whichever worker ran the stalled check last; no owner, not a lock',
  stalled: 'set of active job ids suspected stalled since the last stalled check (removed when their lock is extended), not a lock',
  completed: 'zset of completed job ids, not a lock',
  failed: 'zset of failed job ids, not a lock',
  delayed: 'zset of delayed job ids, not a lock',
  prioritized: 'zset of prioritized job ids, not a lock',
  pc: 'priority counter, not a lock',
  paused: 'list of paused job ids, not a lock',
  limiter: 'rate limiter counter, not a lock',
  repeat: 'repeatable jobs zset, not a lock',
  de: 'deduplication key, not a lock',
  'waiting-children': 'zset of parent jobs waiting for children, not a lock',
};

C.run(async (cfg) => {
  const { Queue, Worker } = require('bullmq');
  const Redis = require('ioredis');
  const version = C.versionOf('bullmq');
  const connection = { host: cfg.host, port: cfg.port, maxRetriesPerRequest: null, connectTimeout: 3000 };
  const reader = new Redis(C.ioredisOpts(cfg));
  const closers = [() => reader.disconnect()];
  C.onStop(() => closers.forEach((f) => f()));
  const san = cfg.prefix.replace(/:/g, '-'); // BullMQ refuses ':' in queue names

  async function runQueue(name, jobs, workerOpts) {
    const queue = new Queue(name, { connection });
    closers.push(() => queue.disconnect && queue.disconnect());
    const started = [];
    let wake;
    const allStarted = new Promise((r) => { wake = r; });
    const worker = new Worker(name, async (job, token) => {
      started.push({ id: job.id, token });
      if (started.length === workerOpts.expectActive) wake();
      await new Promise(() => {}); // a job that never finishes: the lock is renewed forever
    }, { connection, autorun: false, ...workerOpts.opts });
    worker.on('error', (e) => C.fail(`worker error: ${e.message}`));
    closers.push(() => worker.disconnect && worker.disconnect());
    for (let i = 0; i < jobs; i++) await queue.add('long-running', { n: i });
    worker.run().catch((e) => C.fail(`worker.run: ${e.message}`));
    await allStarted;
    return { queue, worker, started };
  }

  const ctx = [];
  const shortQ = `${san}bullmq-short`;
  ctx.push({ q: shortQ, lease: 8000, ...(await runQueue(shortQ, 3, { expectActive: 2, opts: { concurrency: 2, lockDuration: 8000, stalledInterval: 5000 } })) });
  const defQ = `${san}bullmq-default`;
  ctx.push({ q: defQ, lease: 30000, ...(await runQueue(defQ, 1, { expectActive: 1, opts: {} })) });

  // Issue 41: jobs given uuid ids (queue.add(…, { jobId: randomUUID() }), as applications that dedupe do)
  // that finished. Their completed zset is uuid → finishedOn in ms, a past time: the shape of a semaphore's
  // holders, though nobody holds anything.
  const doneQ = `${san}bullmq-done-jobs`;
  const doneQueue = new Queue(doneQ, { connection });
  closers.push(() => doneQueue.disconnect && doneQueue.disconnect());
  let finished = 0;
  let allDone;
  const done = new Promise((r) => { allDone = r; });
  const doneWorker = new Worker(doneQ, async () => 'ok', { connection, autorun: false });
  doneWorker.on('completed', () => { if (++finished === 3) allDone(); });
  doneWorker.on('error', (e) => C.fail(`worker error: ${e.message}`));
  closers.push(() => doneWorker.disconnect && doneWorker.disconnect());
  for (let i = 0; i < 3; i++) await doneQueue.add('send-invoice', { n: i }, { jobId: require('crypto').randomUUID() });
  doneWorker.run().catch((e) => C.fail(`worker.run: ${e.message}`));
  await done;
  await doneWorker.close();
  C.notLock(`bull:${doneQ}:completed`, 'zset of completed jobs (uuid job ids → finishedOn in ms), not a lock nor a semaphore',
    { type: 'zset', strict: true });

  for (const c of ctx) {
    const prefix = `bull:${c.q}:`;
    const lockKeys = new Set();
    const companionKeys = new Set();
    for (const s of c.started) {
      const key = `${prefix}${s.id}:lock`;
      lockKeys.add(key);
      companionKeys.add(`${prefix}${s.id}`);
      C.made({
        library: 'BullMQ', package: 'bullmq', version, key, type: 'string', kind: 'job-lock',
        owner: s.token,
        owner_meaning: 'worker token <worker UUID v4>:<n>, n = the worker\'s job-fetch sequence number (tokenPostfix, one per concurrency slot fetch)',
        lease_ms: c.lease,
        renewal: { every_ms: c.lease / 4, rule: `LockManager timer every lockRenewTime/2 = lockDuration/4 (${c.lease / 4} ms) extends each job whose last extension is older than lockRenewTime/2, so in practice every lockDuration/4; extendLocks re-SETs token PX lockDuration and SREMs the job from the stalled set` },
        queue: c.q, job_id: s.id,
        companions: [`${prefix}${s.id}`, `${prefix}active`, `${prefix}stalled`],
      });
    }
    const present = await C.scanKeys(reader, `${prefix}*`);
    const listed = new Set();
    for (const k of present) {
      if (lockKeys.has(k) || companionKeys.has(k)) continue;
      const suffix = k.slice(prefix.length);
      if (/^[^:]+$/.test(suffix) && !WHY[suffix]) {
        C.notLock(k, 'job hash of a job that is not active (data, opts, timestamps), not a lock');
      } else {
        C.notLock(k, WHY[suffix] || 'BullMQ queue bookkeeping key, not a lock');
      }
      listed.add(k);
    }
    for (const s of ['stalled', 'stalled-check', 'events', 'meta', 'id', 'wait', 'active', 'marker']) {
      const k = prefix + s;
      if (!listed.has(k) && !lockKeys.has(k)) C.notLock(k, WHY[s], { may_be_absent: true });
    }
  }
});
