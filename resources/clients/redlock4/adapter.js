'use strict';
// LockScope client adapter for node-redlock 4 (npm `redlock` 4.2.0, the classic callback/promise API:
// redlock.lock(resource, ttl) -- here lockWithOptions, the same call with the retries given per call --,
// lock.unlock(), lock.extend(ttl)) over ioredis 4, so that the Simulator's workers lock the way applications
// on that library do (docs/client-protocol.md).
//
// One ioredis client per server LockScope names: Redlock needs a quorum of them (a single server is a quorum
// of one). The counter lives on servers[0], read and written on that server's client.
// redlock 4 has no automatic extension (auto_renewal: false); holders call lock.extend themselves.
const Redlock = require('redlock');
const Redis = require('ioredis');
const protocol = require('../node-common/lockscope-protocol.js');

const SUPPORTS = {
  lease: true,
  no_lease: false, // the lock script SETs with PX ttl: 0 is "invalid expire time"
  extend: true,
  auto_renewal: false,
  renewal_events: false,
  reentrant: false, // every lock() draws a new random value, so a held resource looks taken
  fencing: false,
  release_not_held: true, // unlock() rejects when the value is no longer this lock's
};

let clients = [];
let redlock = null;
const held = new Map(); // lock name -> redlock Lock
// Redis errors seen during a request: a LockError with some is an error, without any a refusal (timeout,
// not-held); redlock 4 reports a failed command only through its 'clientError' event.
const redisErrors = protocol.redisErrorWatch();

protocol.serve({
  async hello(request) {
    clients = request.servers.map((server) => protocol.connect(Redis, server));
    // retryCount 0 here, so that extend answers at once (unlock never retries); acquire asks for its retries
    // per call (lockWithOptions). redlock 4 takes the jitter from here only, never from the call's options.
    const { retryJitter } = protocol.redlockRetries(0);
    redlock = new Redlock(clients, { retryCount: 0, retryJitter });
    redlock.on('clientError', redisErrors.record);
    return { library: 'redlock', version: require('redlock/package.json').version, supports: SUPPORTS };
  },

  async acquire(request) {
    const retries = protocol.redlockRetries(request.wait_ms);
    const lock = await redisErrors.run(() => redlock.lockWithOptions(request.lock, request.lease_ms, retries),
      Redlock.LockError, protocol.timedOut);
    held.set(request.lock, lock);
    return { token: lock.value };
  },

  async release(request) {
    const lock = held.get(request.lock);
    if (!lock) throw protocol.notHeld();
    held.delete(request.lock);
    await redisErrors.run(() => lock.unlock(), Redlock.LockError, protocol.notHeld);
    return {};
  },

  async extend(request) {
    const lock = held.get(request.lock);
    if (!lock) throw protocol.notHeld();
    // Rejects at once when the library's own clock says the lock has expired, else re-SETs the value with the
    // new PX on a quorum, only where the value is still ours.
    await redisErrors.run(() => lock.extend(request.lease_ms), Redlock.LockError, protocol.notHeld);
    return {};
  },

  read: (request) => protocol.readCounter(clients[0], request.key),
  write: (request) => protocol.writeCounter(clients[0], request.key, request.value),
});
