'use strict';
// The conversation side of LockScope's Node.js client adapters (docs/client-protocol.md): reads one JSON
// request per line from standard input, runs them one at a time through the adapter's handlers, writes one
// JSON reply per line to standard output, and exits when standard input closes. Each adapter
// (../<id>/adapter.js) supplies only what its library does: hello, acquire, release, extend, read, write.
//
// This file requires no npm package: the adapters require their libraries by bare name (found through
// NODE_PATH) and hand the clients they make to the functions below.

const readline = require('readline');

// Standard output carries the protocol and nothing else. Libraries log with console.log/info/debug now and
// then (and ioredis with console.error); all of it goes to standard error, which LockScope keeps as a log.
for (const name of ['log', 'info', 'debug', 'warn']) {
  console[name] = (...args) => console.error(...args);
}

// Thrown by a handler to answer {"ok": false, "reason": …} with a reason other than "error".
class Refusal extends Error {
  constructor(reason, message) {
    super(message);
    this.reason = reason;
  }
}
const notHeld = (message) => new Refusal('not-held', message || 'not held by this worker');
const timedOut = (message) => new Refusal('timeout', message || 'not acquired within wait_ms');
const unsupported = (message) => new Refusal('unsupported', message);

// One line a person can read, as the protocol asks of every `error`.
function errorText(error) {
  if (!(error instanceof Error)) return String(error);
  const name = error.name && error.name !== 'Error' ? `${error.name}: ` : '';
  return `${name}${error.message}`.replace(/\s+/g, ' ').trim();
}

function writeLine(object) {
  // Writes to a pipe are synchronous on Linux, so a line is out before the next one (or process.exit).
  process.stdout.write(`${JSON.stringify(object)}\n`);
}

// An event line (no id): {"event": "lost", "lock": …} or {"event": "renewed", …}.
function event(name, fields) {
  writeLine({ event: name, ...fields });
}

// A client of the adapter's ioredis (whichever major it pins) for one of hello's servers, with the library's
// default options, as an application makes it; its connection errors go to the log, one line each.
function connect(Redis, server) {
  const client = new Redis({ host: server.host, port: server.port });
  client.on('error', (error) => console.error(`${server.host}:${server.port}: ${errorText(error)}`));
  return client;
}

// read/write: the critical section's GET and SET of the counter, on the adapter's own ioredis client.
async function readCounter(client, key) {
  const value = await client.get(key);
  if (value !== null && !/^-?\d+$/.test(value)) throw new Error(`${key} holds ${JSON.stringify(value)}, not an integer`);
  return { value: value === null ? null : Number(value) };
}

async function writeCounter(client, key, value) {
  await client.set(key, String(value));
  return {};
}

// Both redlock libraries (node-redlock 4 and its fork @sesamecare-oss/redlock) try once, then retry
// `retryCount` times, `retryDelay` ± `retryJitter` ms apart. LockScope says how long to wait (wait_ms), not
// how often: retrying every 50 ms (the libraries' default is 200 ms, too coarse for short leases) as many
// times as fit in wait_ms keeps trying for about wait_ms, and the small jitter keeps contending workers from
// retrying in lockstep, which is what the library's jitter is for. wait_ms 0: one attempt.
function redlockRetries(waitMs) {
  const retryDelay = 50;
  return { retryCount: Math.floor(waitMs / retryDelay), retryDelay, retryJitter: 10 };
}

// Both redlock libraries count a failed Redis command as a vote against, exactly as they count a resource
// taken by someone else (or no longer ours), and fail with one message for both ("Exceeded N attempts", "unable
// to achieve a quorum"). They do emit each Redis error as an event, though: a watch collects those during one
// request, so that a failure with Redis errors answers "error" (naming the last one) and a failure without
// any answers what the library meant: `refusal` ("timeout" for an acquire, "not-held" for release and extend).
function redisErrorWatch() {
  let errors = [];
  return {
    record: (error) => errors.push(error),
    async run(action, libraryFailure, refusal) {
      errors = [];
      try {
        return await action();
      } catch (error) {
        if (!(error instanceof libraryFailure)) throw error;
        if (errors.length > 0) throw new Error(`${errorText(error)} (${errorText(errors[errors.length - 1])})`);
        throw refusal(errorText(error));
      }
    },
  };
}

// Serves the protocol with `handlers` (one async function per op, given the request, returning the reply's
// extra fields). A missing handler or an unknown op answers "unsupported"; a Refusal answers its reason; any
// other exception answers "error".
function serve(handlers) {
  // A library's stray promise rejection (redis-semaphore's refresh timer, for one, rejects when its command
  // fails) would end the process under Node's default; a worker keeps running as an application that logs
  // such errors does, and the log says what happened.
  process.on('unhandledRejection', (reason) => console.error(`unhandled rejection: ${errorText(reason)}`));
  process.stdout.on('error', () => process.exit(0)); // LockScope went away: nobody to answer.

  let queue = Promise.resolve(); // requests run one after the other, replies keep their order
  const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  input.on('line', (line) => {
    if (!line.trim()) return;
    queue = queue.then(() => answer(handlers, line));
  });
  // Standard input closed: answer what was already read, then exit at once without releasing anything
  // (timers and Redis connections would otherwise keep Node running).
  input.on('close', () => queue.then(() => process.exit(0)));
}

async function answer(handlers, line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    console.error(`not a JSON request, ignored: ${line.slice(0, 200)}`);
    return;
  }
  const reply = { id: request.id, ok: true };
  const handler = Object.prototype.hasOwnProperty.call(handlers, request.op) ? handlers[request.op] : null;
  try {
    if (request.op === 'quit') {
      writeLine(reply);
      process.exit(0);
    }
    if (!handler) throw unsupported(`unknown op ${request.op}`);
    Object.assign(reply, await handler(request));
  } catch (error) {
    reply.ok = false;
    reply.reason = error instanceof Refusal ? error.reason : 'error';
    reply.error = errorText(error);
  }
  writeLine(reply);
}

module.exports = {
  serve, event, errorText, connect, notHeld, timedOut, unsupported, readCounter, writeCounter,
  redlockRetries, redisErrorWatch,
};
