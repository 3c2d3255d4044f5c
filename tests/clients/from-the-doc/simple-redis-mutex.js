#!/usr/bin/env node
// Written from docs/client-protocol.md alone, by an engineer who had not read LockScope's code: the test that
// the document is enough (issue 19). Kept as it was written; CTest holds it to the conformance check and runs
// it in a GC-pause story (tests/clients/CMakeLists.txt), with the npm packages of tests/libraries/node.
// A LockScope client adapter for simple-redis-mutex 3 (node-redis 5), written from docs/client-protocol.md.
//
// The library, as read in its source (dist/index.js):
// - tryLock: SET key rand NX PX timeout, then INCR of a global fencing counter (a second round trip).
// - lock: tryLock now, again on every release published on its pub/sub channel, and every
//   `pollingInterval` ms (default 10 000) to notice expired locks; rejects after `failAfter` ms.
// - release: a script deletes the key only if it holds our value, and reports nothing either way.
// - refreshTimeout: GET, then PEXPIRE to the *acquire's* timeout; reports nothing either way.
// - timeout: null (its documented "never expires") throws inside node-redis 5 (PX null.toString()).
// options: {"pollingInterval": ms} (default: the library's), {"extend": true} (offer refreshTimeout, see below).
'use strict';
const readline = require('readline');
const { createClient } = require('redis');
const mutex = require('simple-redis-mutex');

const LIBRARY = 'simple-redis-mutex';
const VERSION = require('simple-redis-mutex/package.json').version;
const held = new Map(); // lock name -> {release, lease}
let conn = null, options = {}, lastError = null;

const send = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
const describe = (e) => `${(e && e.name) || 'Error'}: ${(e && e.message) || e}`;
// lock()'s background attempts have no catch: their rejections end up here, not in lock()'s promise.
process.on('unhandledRejection', (e) => { lastError = describe(e); console.error('unhandled:', lastError); });

function supports() {
  return {
    lease: true, no_lease: false, extend: options.extend === true, auto_renewal: false,
    renewal_events: false, reentrant: false, fencing: true, release_not_held: false,
  };
}

async function connect(server) {
  let connected = false;
  const client = createClient({
    socket: {
      host: server.host, port: server.port, connectTimeout: 5000,
      // The first connection fails hello; later losses (drop-connections) are retried, as an application would.
      reconnectStrategy: (retries, cause) => (connected ? Math.min(50 * retries, 500) : cause),
    },
  });
  client.on('error', (e) => { lastError = describe(e); console.error('redis:', lastError); });
  await client.connect();
  connected = true;
  return client;
}

async function handle(req) {
  const reply = { id: req.id, ok: true };
  const fail = (reason, error) => Object.assign(reply, { ok: false, reason }, error ? { error } : {});
  switch (req.op) {
    case 'hello':
      options = req.options || {};
      conn = await connect(req.servers[0]);
      return Object.assign(reply, { library: LIBRARY, version: VERSION, supports: supports() });
    case 'acquire': {
      if (!(req.lease_ms > 0)) return fail('error', 'simple-redis-mutex cannot make a lock without expiry');
      const lease = req.lease_ms;
      let release;
      if (req.wait_ms > 0) {
        const opts = { timeout: lease, failAfter: req.wait_ms };
        if (options.pollingInterval) opts.pollingInterval = options.pollingInterval;
        lastError = null;
        try {
          release = await mutex.lock(conn, req.lock, opts);
        } catch (e) { // its only rejection: "could not be acquired after N millis"
          return fail('timeout', lastError ? `${e.message} (last error: ${lastError})` : e.message);
        }
      } else {
        const [ok, rel] = await mutex.tryLock(conn, req.lock, { timeout: lease });
        if (!ok) return fail('timeout');
        release = rel;
      }
      held.set(req.lock, { release, lease });
      return Object.assign(reply, { fence: release.fencingToken });
    }
    case 'release': {
      const h = held.get(req.lock);
      if (!h) return fail('not-held', 'not held by this worker');
      held.delete(req.lock);
      await h.release(); // deletes only our own value; silent when it was no longer ours
      return reply;
    }
    case 'extend': {
      if (!options.extend) return fail('unsupported', 'simple-redis-mutex has no extend with a new lease');
      const h = held.get(req.lock);
      if (!h) return fail('not-held', 'not held by this worker');
      if (req.lease_ms !== h.lease) return fail('error', `refreshTimeout can only reset the lease to ${h.lease} ms`);
      await h.release.refreshTimeout(); // silent when the lock was no longer ours
      return reply;
    }
    case 'read': {
      if (!conn) return fail('error', 'not connected (no successful hello)');
      const value = await conn.get(req.key);
      return Object.assign(reply, { value: value === null ? null : parseInt(value, 10) });
    }
    case 'write':
      if (!conn) return fail('error', 'not connected (no successful hello)');
      await conn.set(req.key, String(req.value));
      return reply;
    case 'quit':
      return reply;
    default:
      return fail('unsupported', `unknown op ${req.op}`);
  }
}

// One request at a time, replies in order, however many lines arrive together.
const queue = [];
let busy = false, inputClosed = false;

async function pump() {
  if (busy) return;
  busy = true;
  while (queue.length) {
    const line = queue.shift();
    let req;
    try { req = JSON.parse(line); } catch (e) { console.error('bad line:', line); continue; }
    let reply;
    try {
      reply = await handle(req);
    } catch (e) {
      reply = { id: req.id, ok: false, reason: 'error', error: describe(e) };
    }
    send(reply);
    if (req.op === 'quit') return exit();
  }
  busy = false;
  if (inputClosed) exit();
}

function exit() {
  // Pipes are written synchronously on Linux; wait for stdout anyway, then leave whatever the timers do.
  process.stdout.write('', () => process.exit(0));
  setTimeout(() => process.exit(0), 500).unref();
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on('line', (line) => { if (line.trim()) { queue.push(line); pump(); } });
rl.on('close', () => { inputClosed = true; pump(); });
