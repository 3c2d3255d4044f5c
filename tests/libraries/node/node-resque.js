'use strict';
// node-resque 9.x (actionhero/node-resque) on ioredis.
// Source read: node_modules/node-resque/dist/plugins/QueueLock.js (beforeEnqueue: SETNX
// <ns>:lock:<func>:<queue>:<JSON args> = now s + lockTimeout + 1, then EXPIRE lockTimeout; default
// lockTimeout 3600 s; deleted in beforePerform), plugins/JobLock.js (beforePerform: SET
// <ns>:workerslock:<func>:<queue>:<JSON args> = now s + lockTimeout + 1 EX lockTimeout NX; deleted in
// afterPerform), core/scheduler.js (tryForLeader on every poll: SET <ns>:resque_scheduler_leader_lock
// <hostname>:<pid> EX leaderLockTimeout (180 s) NX, or EXPIRE it again when it is ours; poll every
// options.timeout, 5000 ms), core/connection.js (key(): namespace parts joined with ':').
// No lock has an owner but the leader's: the value of the queue and job locks is a deadline in s.
const C = require('./_common');
const os = require('os');

C.run(async (cfg) => {
  const { Queue, Worker, Scheduler } = require('node-resque');
  const Redis = require('ioredis');
  const version = C.versionOf('node-resque');
  const ns = `${cfg.prefix}resque`;
  const connection = { pkg: 'ioredis', host: cfg.host, port: cfg.port, namespace: ns, options: { connectTimeout: 3000, maxRetriesPerRequest: 2 } };
  const reader = new Redis(C.ioredisOpts(cfg));
  const closers = [() => reader.disconnect()];
  C.onStop(() => closers.forEach((f) => f()));
  const base = { library: 'node-resque', package: 'node-resque', version, type: 'string' };
  const deadline = 'a deadline, in s since the epoch (now + lockTimeout + 1): it names no holder';

  let startedJob;
  const started = new Promise((r) => { startedJob = r; });
  const jobs = {
    // Held by the worker for as long as it runs (JobLock); the job never finishes.
    report: { plugins: ['JobLock'], pluginOptions: { JobLock: { lockTimeout: 900 } },
      perform: async () => { startedJob(); await new Promise(() => {}); } },
    // Enqueued but never worked (no worker listens on its queue): the QueueLock stays.
    invoice: { plugins: ['QueueLock'], pluginOptions: { QueueLock: {} }, perform: async () => true },
  };
  const queue = new Queue({ connection }, jobs);
  queue.on('error', (e) => C.fail(`queue: ${e.message}`));
  await queue.connect();
  closers.push(() => queue.connection.redis.disconnect());

  await queue.enqueue('billing', 'invoice', [42]);
  const qlKey = `${ns}:lock:invoice:billing:[42]`;
  const qlValue = await reader.get(qlKey);
  if (!qlValue) throw new Error(`QueueLock did not write ${qlKey}`);
  C.made({ ...base, key: qlKey, kind: 'job-lock', queue: 'billing', job_id: 'invoice[42]', owner: qlValue, owner_meaning: deadline, lease_ms: 3600000,
    renewal: null });

  const worker = new Worker({ connection, queues: ['reports'], timeout: 200 }, jobs);
  worker.on('error', (e) => C.fail(`worker: ${e.message}`));
  await worker.connect();
  closers.push(() => worker.connection.redis.disconnect());
  await queue.enqueue('reports', 'report', ['2024-06']);
  worker.start();
  await started;
  const jlKey = `${ns}:workerslock:report:reports:["2024-06"]`;
  const jlValue = await reader.get(jlKey);
  if (!jlValue) throw new Error(`JobLock did not write ${jlKey}`);
  C.made({ ...base, key: jlKey, kind: 'job-lock', queue: 'reports', job_id: 'report["2024-06"]', owner: jlValue, owner_meaning: deadline, lease_ms: 900000,
    renewal: null });

  const scheduler = new Scheduler({ connection, timeout: 2000 });
  scheduler.on('error', (e) => C.fail(`scheduler: ${e.message}`));
  await scheduler.connect();
  closers.push(() => { scheduler.running = false; clearTimeout(scheduler.timer); scheduler.connection.redis.disconnect(); });
  let elected;
  const leader = new Promise((r) => { elected = r; });
  scheduler.on('leader', () => elected());
  await scheduler.start();
  await leader;
  const leaderKey = `${ns}:resque_scheduler_leader_lock`;
  C.made({ ...base, key: leaderKey, kind: 'mutex', owner: `${os.hostname()}:${process.pid}`,
    owner_meaning: 'the scheduler name: <hostname>:<pid> by default', lease_ms: 180000,
    renewal: { every_ms: 2000, rule: 'every scheduler poll (options.timeout, 2000 ms here) EXPIREs it back to leaderLockTimeout (180 s)' } });

  const locks = new Set([qlKey, jlKey, leaderKey]);
  for (const key of await C.scanKeys(reader, `${ns}:*`)) {
    if (!locks.has(key)) C.notLock(key, 'node-resque queue, worker or stats data, not a lock');
  }
});
