'use strict';
// LockScope client adapter for redis-semaphore 5.8.0's Mutex over ioredis 5, so that the Simulator's workers
// lock the way applications on that library do (docs/client-protocol.md). `auto_renew` turns on the Mutex's
// own refresh timer (refreshInterval, every 80 % of the lease by default); each refresh that kept the lock
// becomes a `renewed` event and its onLockLost callback a `lost` event. The Mutex's key is `mutex:<lock>` on
// servers[0], where the counter lives too.
const { Mutex } = require('redis-semaphore');
const Redis = require('ioredis');
const protocol = require('../node-common/lockscope-protocol.js');

const SUPPORTS = {
  lease: true,
  no_lease: false, // acquire SETs with PX lockTimeout: 0 is "invalid expire time"
  extend: false, // a Mutex has no public call to extend; only its refresh timer does
  auto_renewal: true,
  // The refresh timer reports failures (onLockLost) but not successes: ReportingMutex says each one, so that
  // LockScope can tell when the lease really ran out (without them it would have to take the lease as kept).
  renewal_events: true,
  reentrant: false, // each Mutex draws its own random identifier, so a held key looks taken
  fencing: false,
  // release() runs a delete-if-equal script and ignores its answer: a lock that expired or went to someone
  // else releases "fine". Only a loss its refresh noticed (onLockLost) can be told.
  release_not_held: false,
};

let client = null;
const held = new Map(); // lock name -> {mutex, lost}

// The library's Mutex, saying each refresh that kept the lock: _refresh is the hook Lock's subclasses
// implement (protected in its typings), called by the refresh timer; the lease runs from its PEXPIRE, which
// happened before its answer arrived here.
class ReportingMutex extends Mutex {
  constructor(redis, name, options, onRefreshed) {
    super(redis, name, options);
    this.onRefreshed = onRefreshed;
  }

  async _refresh() {
    const refreshed = await super._refresh();
    if (refreshed) this.onRefreshed();
    return refreshed;
  }
}

protocol.serve({
  async hello(request) {
    client = protocol.connect(Redis, request.servers[0]);
    const version = require('redis-semaphore/package.json').version;
    return { library: 'redis-semaphore', version, supports: SUPPORTS };
  },

  async acquire(request) {
    const entry = { mutex: null, lost: null };
    entry.mutex = new ReportingMutex(client, request.lock, {
      lockTimeout: request.lease_ms,
      // The library stops trying once acquireTimeout has passed, checked before each attempt: with 0 it would
      // not try at all, so "try once" is one attempt with time to make it.
      acquireTimeout: request.wait_ms > 0 ? request.wait_ms : 60000,
      acquireAttemptsLimit: request.wait_ms > 0 ? Number.POSITIVE_INFINITY : 1,
      // 0 turns the refresh timer off; undefined keeps the library's default (80 % of lockTimeout).
      refreshInterval: request.auto_renew ? undefined : 0,
      // The library's default callback throws, which would end the process.
      onLockLost: (error) => {
        entry.lost = error;
        protocol.event('lost', { lock: request.lock, error: protocol.errorText(error) });
      },
    }, () => protocol.event('renewed', { lock: request.lock, lease_ms: request.lease_ms }));
    if (!(await entry.mutex.tryAcquire())) throw protocol.timedOut();
    held.set(request.lock, entry);
    return { token: entry.mutex.identifier };
  },

  async release(request) {
    const entry = held.get(request.lock);
    if (!entry) throw protocol.notHeld();
    held.delete(request.lock);
    await entry.mutex.release(); // stops the refresh timer; deletes the key only if it still holds our id
    if (entry.lost) throw protocol.notHeld(`lost: ${protocol.errorText(entry.lost)}`);
    return {};
  },

  async extend() {
    throw protocol.unsupported('redis-semaphore\'s Mutex has no call to extend a lock (auto_renew refreshes it)');
  },

  read: (request) => protocol.readCounter(client, request.key),
  write: (request) => protocol.writeCounter(client, request.key, request.value),
});
