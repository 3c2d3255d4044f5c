'use strict';
// Shared plumbing for the fixture drivers (not a driver itself).
//
// Contract of every driver:  node <library>.js --port N [--prefix P]
//   - connects to 127.0.0.1:N, makes locks through the library's own API,
//   - prints one {"made": {...}} line per lock key, {"not_lock": {...}} lines for
//     the library's other keys, then {"ready": true},
//   - holds (renewals keep running) until stdin reaches EOF or SIGTERM/SIGINT,
//     then exits 0 at once without releasing anything,
//   - any failure: one line on stderr, exit code 1; setup is capped at 20 s.

const fs = require('fs');
const path = require('path');

const SETUP_CAP_MS = 20000;
process.noDeprecation = true; // keep stderr for failures only (warlock uses new Buffer())

// Libraries log through console.error/warn (e.g. ioredis' "Unhandled error event" with a
// stack); keep stderr to the one-line failure message of the contract.
let lastLibraryError = '';
console.error = (...a) => { lastLibraryError = a.map(String).join(' ').split('\n')[0]; };
console.warn = () => {};

function fail(msg) {
  if (lastLibraryError && !String(msg).includes(lastLibraryError)) msg = `${msg} (library said: ${lastLibraryError})`;
  try {
    process.stderr.write(String(msg).replace(/\s+/g, ' ').trim().slice(0, 500) + '\n');
  } catch (_) { /* ignore */ }
  process.exit(1);
}

function parseArgs(argv = process.argv.slice(2)) {
  let port = null;
  let prefix = 'fx:';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--port' && i + 1 < argv.length) port = Number(argv[++i]);
    else if (a.startsWith('--port=')) port = Number(a.slice(7));
    else if (a === '--prefix' && i + 1 < argv.length) prefix = argv[++i];
    else if (a.startsWith('--prefix=')) prefix = a.slice(9);
    else fail(`unknown argument: ${a} (usage: --port N [--prefix P])`);
  }
  if (!Number.isInteger(port) || port <= 0 || port > 65535) fail('usage: --port N [--prefix P] (port missing or invalid)');
  return { port, prefix, host: '127.0.0.1' };
}

// Version of an installed package (directory under node_modules, alias names allowed).
function versionOf(dir) {
  const file = path.join(__dirname, 'node_modules', dir, 'package.json');
  return JSON.parse(fs.readFileSync(file, 'utf8')).version;
}

function out(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function made(fields) {
  const m = Object.assign({ companions: [] }, fields);
  for (const k of ['library', 'package', 'version', 'key', 'type', 'kind', 'owner', 'owner_meaning']) {
    if (m[k] === undefined) fail(`driver bug: made line without ${k}`);
  }
  if (!('lease_ms' in m)) fail('driver bug: made line without lease_ms');
  if (!('renewal' in m)) m.renewal = null;
  out({ made: m });
}

function notLock(key, why, extra) {
  out({ not_lock: Object.assign({ key, why }, extra || {}) });
}

let setupTimer = null;
let stopping = false;
const stopHooks = [];

function startSetupTimer(ms = SETUP_CAP_MS) {
  setupTimer = setTimeout(() => fail(`setup did not finish within ${ms} ms`), ms);
  process.on('unhandledRejection', (e) => fail(`unhandled rejection: ${e && e.stack ? e.message : e}`));
  process.on('uncaughtException', (e) => fail(`uncaught exception: ${e && e.message ? e.message : e}`));
  // A stop request during setup also ends the driver promptly.
  const stop = () => exitNow();
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', stop);
}

function onStop(fn) { stopHooks.push(fn); }

function exitNow() {
  if (stopping) return;
  stopping = true;
  for (const fn of stopHooks) {
    try { fn(); } catch (_) { /* ignore */ }
  }
  // Do not release anything: the locks stay as they are (like a holder that stops).
  process.exit(0);
}

// Prints {"ready": true} and holds until stdin EOF or a signal.
function ready() {
  if (setupTimer) clearTimeout(setupTimer);
  out({ ready: true });
  process.stdin.on('end', exitNow);
  process.stdin.on('close', exitNow);
  process.stdin.on('error', exitNow);
  process.stdin.on('data', () => {});
  process.stdin.resume();
}

// Plain TCP PING before anything else, so an unreachable server fails fast with one line
// (ioredis-based libraries would otherwise retry for a while).
function preflight(cfg) {
  const net = require('net');
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: cfg.host, port: cfg.port });
    const timer = setTimeout(() => { sock.destroy(); reject(new Error(`Redis at ${cfg.host}:${cfg.port} did not answer PING within 3 s`)); }, 3000);
    let got = '';
    sock.on('connect', () => sock.write('*1\r\n$4\r\nPING\r\n'));
    sock.on('data', (d) => {
      got += d;
      if (got.includes('\r\n')) {
        clearTimeout(timer);
        sock.destroy();
        if (got.startsWith('+PONG')) resolve();
        else reject(new Error(`Redis at ${cfg.host}:${cfg.port} answered PING with ${JSON.stringify(got.trim())}`));
      }
    });
    sock.on('error', (e) => { clearTimeout(timer); reject(new Error(`cannot reach Redis at ${cfg.host}:${cfg.port}: ${e.code || e.message}`)); });
  });
}

// Run the driver's async main with the common guards.
function run(main) {
  startSetupTimer();
  const cfg = parseArgs();
  preflight(cfg)
    .then(() => main(cfg))
    .then(() => ready())
    .catch((e) => fail(e && e.message ? e.message : e));
}

// ioredis options that fail fast during setup instead of retrying forever.
function ioredisOpts(cfg, extra) {
  return Object.assign({
    host: cfg.host,
    port: cfg.port,
    lazyConnect: false,
    enableOfflineQueue: true,
    connectTimeout: 3000,
    retryStrategy: (times) => (times > 3 ? null : 200),
  }, extra || {});
}

// Reads back a key's value with a plain read (used only to report what the library
// stored when its API does not expose the token).
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Lists keys matching a pattern with SCAN (bounded), for not_lock reporting.
async function scanKeys(ioredisClient, pattern, maxRounds = 200) {
  const keys = new Set();
  let cursor = '0';
  for (let i = 0; i < maxRounds; i++) {
    const [next, batch] = await ioredisClient.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    batch.forEach((k) => keys.add(k));
    cursor = next;
    if (cursor === '0') break;
  }
  return [...keys].sort();
}

module.exports = {
  fail, parseArgs, versionOf, made, notLock, out, ready, run, onStop, exitNow, ioredisOpts, sleep, scanKeys,
};
