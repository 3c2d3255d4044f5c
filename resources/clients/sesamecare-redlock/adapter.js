'use strict';
// LockScope client adapter for @sesamecare-oss/redlock 1.4.0 (the maintained TypeScript fork of redlock 5)
// over ioredis 5, so that the Simulator's workers lock the way applications on that library do
// (docs/client-protocol.md). `auto_renew` runs the library's auto-extension: redlock.using(), which keeps
// extending the lock while its routine runs; here the routine runs until LockScope sends `release`.
//
// One ioredis client per server LockScope names: Redlock needs a quorum of them (a single server is a quorum
// of one). The counter lives on servers[0], read and written on that server's client.
const { Redlock, ResourceLockedError, ExecutionError } = require('@sesamecare-oss/redlock');
const Redis = require('ioredis');
const protocol = require('../node-common/lockscope-protocol.js');

const SUPPORTS = {
  lease: true,
  no_lease: false, // the acquire script SETs with PX duration: 0 is "invalid expire time"
  extend: true,
  auto_renewal: true,
  // Every extension by using() counts itself in context.extensions, which this adapter watches (below).
  renewal_events: true,
  reentrant: false, // every acquire draws a new random value, so a held resource looks taken
  fencing: false,
  release_not_held: true, // release() fails its quorum when the value is no longer this lock's
};

// The library's default: using() extends when 500 ms of the lease are left. It refuses a lease less than
// 100 ms above that threshold, so leases under 1000 ms extend when half of the lease is left instead.
const EXTENSION_THRESHOLD_MS = 500;

let clients = [];
let redlock = null;
// lock name -> {lock} for a plain lock, or {context, routineDone, finish, lost} for one under using()
const held = new Map();
// Redis errors seen during a request: an ExecutionError with some is an error, without any a refusal
// (timeout, not-held). The library's 'error' events also carry a ResourceLockedError for every vote of a
// script that found the resource taken or not ours; those are the refusal itself, not an error (and
// acquire() emits some from its clean-up release after a failure).
const redisErrors = protocol.redisErrorWatch();

// Acquires under using() and resolves once the routine runs, i.e. once the lock is held; the routine then
// waits until `release` calls finish(), and using() releases the lock as it returns.
function acquireRenewed(name, leaseMs, retries) {
  const automaticExtensionThreshold = Math.min(EXTENSION_THRESHOLD_MS, Math.floor(leaseMs / 2));
  const settings = { ...retries, automaticExtensionThreshold };
  return new Promise((resolve, reject) => {
    const entry = { context: null, routineDone: null, finish: null, lost: null };
    entry.routineDone = redlock.using([name], leaseMs, settings, async (signal, context) => {
      entry.context = context;
      // using() runs `context.extensions += 1` right after each extension's quorum answered: the moment to
      // say "renewed" (the lease runs from a Redis SET that happened before it).
      let extensions = context.extensions;
      Object.defineProperty(context, 'extensions', {
        get: () => extensions,
        set: (value) => {
          extensions = value;
          protocol.event('renewed', { lock: name, lease_ms: leaseMs });
        },
      });
      // The library aborts the signal when an extension failed and the lock expired on its clock.
      signal.addEventListener('abort', () => {
        entry.lost = signal.error || new Error('the lock could not be extended');
        protocol.event('lost', { lock: name, error: protocol.errorText(entry.lost) });
      });
      resolve(entry);
      await new Promise((finish) => { entry.finish = finish; });
    });
    // Before the routine ran: the acquisition failed. After: `release` awaits routineDone itself.
    entry.routineDone.catch((error) => { if (!entry.context) reject(error); });
  });
}

protocol.serve({
  async hello(request) {
    clients = request.servers.map((server) => protocol.connect(Redis, server));
    // retryCount 0 here, so that release and extend answer at once; acquire asks for its retries per call.
    redlock = new Redlock(clients, { retryCount: 0 });
    redlock.on('error', (error) => { if (!(error instanceof ResourceLockedError)) redisErrors.record(error); });
    return { library: '@sesamecare-oss/redlock', version: require('@sesamecare-oss/redlock/package.json').version,
      supports: SUPPORTS };
  },

  async acquire(request) {
    const retries = protocol.redlockRetries(request.wait_ms);
    const attempt = request.auto_renew
      ? () => acquireRenewed(request.lock, request.lease_ms, retries)
      : async () => ({ lock: await redlock.acquire([request.lock], request.lease_ms, retries) });
    const entry = await redisErrors.run(attempt, ExecutionError, protocol.timedOut);
    held.set(request.lock, entry);
    return { token: (entry.context ? entry.context.lock : entry.lock).value };
  },

  async release(request) {
    const entry = held.get(request.lock);
    if (!entry) throw protocol.notHeld();
    held.delete(request.lock);
    if (!entry.context) {
      await redisErrors.run(() => entry.lock.release(), ExecutionError, protocol.notHeld);
      return {};
    }
    entry.finish();
    // using() waits for an extension in flight, then releases. A lock the library already said it lost is
    // not-held whatever that release met (the protocol's promise after a `lost` event).
    try {
      await redisErrors.run(() => entry.routineDone, ExecutionError, protocol.notHeld);
    } catch (error) {
      if (!entry.lost) throw error;
      throw protocol.notHeld(`lost: ${protocol.errorText(entry.lost)}; release: ${protocol.errorText(error)}`);
    }
    return {};
  },

  async extend(request) {
    const entry = held.get(request.lock);
    if (!entry) throw protocol.notHeld();
    // Rejects at once when the library's own clock says the lock has expired, else re-SETs the value with
    // the new PX on a quorum, only where the value is still ours. Under using(), the extended lock becomes
    // the one the library keeps extending.
    const current = entry.context ? entry.context.lock : entry.lock;
    const extended = await redisErrors.run(() => redlock.extend(current, request.lease_ms), ExecutionError,
      protocol.notHeld);
    if (entry.context) entry.context.lock = extended;
    else entry.lock = extended;
    return {};
  },

  read: (request) => protocol.readCounter(clients[0], request.key),
  write: (request) => protocol.writeCounter(clients[0], request.key, request.value),
});
