'use strict';
// Checker behind check-all.sh: runs each driver against a Redis on 127.0.0.1:PORT, waits for
// {"ready":true}, dumps TYPE/PTTL/value of every key (redis-cli --scan), compares the dump
// with the driver's manifest, watches PTTL of auto-renewed keys every 100 ms, then stops the
// driver (stdin EOF or SIGTERM, alternating) and checks it exits 0 within 1 s.
//
//   node _check.js --port N [--runs 2] [--measure] [--only a,b] [--out DIR] [--prefix P]
//
// Every wait is bounded; the process exits 0 only if every check passed.
const fs = require('fs');
const path = require('path');
const { spawn, execFileSync } = require('child_process');
const Redis = require('ioredis');

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : def; };
const PORT = Number(opt('--port'));
const RUNS = Number(opt('--runs', '1'));
const MEASURE = args.includes('--measure');
const FIXED_PREFIX = opt('--prefix', ''); // default: a fresh prefix per driver and run
const ONLY = opt('--only', '') ? opt('--only').split(',') : null;
const OUT = opt('--out', fs.mkdtempSync('/tmp/lockscope-node-check-'));
if (!Number.isInteger(PORT) || PORT <= 0) { console.error('usage: node _check.js --port N'); process.exit(2); }
fs.mkdirSync(OUT, { recursive: true });

const DIR = __dirname;
const DBS = [0, 1, 2];
const KINDS = new Set(['mutex', 'rw', 'semaphore', 'job-lock', 'latch']);
const drivers = fs.readdirSync(DIR).filter((f) => f.endsWith('.js') && !f.startsWith('_'))
  .map((f) => f.slice(0, -3)).filter((d) => !ONLY || ONLY.includes(d)).sort();

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const cli = (db, ...a) => execFileSync('redis-cli', ['-h', '127.0.0.1', '-p', String(PORT), '-n', String(db), ...a],
  { encoding: 'utf8', timeout: 10000 }).replace(/\n$/, '');

function scanAll() {
  const keys = new Set();
  for (const db of DBS) {
    const out = cli(db, '--scan');
    if (out) out.split('\n').forEach((k) => keys.add(`${db}\u0000${k}`));
  }
  return keys;
}

function dumpKey(db, key) {
  const type = cli(db, 'TYPE', key);
  const pttl = Number(cli(db, 'PTTL', key));
  let value;
  switch (type) {
    case 'string': value = cli(db, 'GET', key); break;
    case 'hash': value = cli(db, 'HGETALL', key).split('\n'); break;
    case 'zset': value = cli(db, 'ZRANGE', key, '0', '-1', 'WITHSCORES').split('\n'); break;
    case 'list': value = cli(db, 'LRANGE', key, '0', '19').split('\n'); break;
    case 'set': value = cli(db, 'SMEMBERS', key).split('\n'); break;
    case 'stream': value = `XLEN ${cli(db, 'XLEN', key)}`; break;
    default: value = null;
  }
  return { db, key, type, pttl, value };
}

function runDriver(name, prefix) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(DIR, `${name}.js`), '--port', String(PORT), '--prefix', prefix],
      { cwd: DIR, stdio: ['pipe', 'pipe', 'pipe'] });
    const lines = [];
    let buf = '';
    let err = '';
    let done = false;
    const finish = (r) => { if (!done) { done = true; clearTimeout(timer); resolve(r); } };
    const timer = setTimeout(() => finish({ child, lines, error: 'no {"ready":true} within 25 s', stderr: err }), 25000);
    child.stdout.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i); buf = buf.slice(i + 1);
        if (!line.trim()) continue;
        let obj;
        try { obj = JSON.parse(line); } catch (e) { return finish({ child, lines, error: `non-JSON stdout line: ${line.slice(0, 200)}`, stderr: err }); }
        lines.push(obj);
        if (obj.ready === true) finish({ child, lines, stderr: err });
      }
    });
    child.stderr.on('data', (d) => { err += d; });
    child.on('exit', (code) => finish({ child, lines, error: `driver exited (code ${code}) before ready`, stderr: err, exited: true }));
  });
}

function stopDriver(child, how) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    let killedHard = false;
    const hard = setTimeout(() => { killedHard = true; child.kill('SIGKILL'); }, 3000);
    child.on('exit', (code, signal) => { clearTimeout(hard); resolve({ code, signal, ms: Date.now() - t0, killedHard }); });
    if (how === 'eof') child.stdin.end(); else child.kill('SIGTERM');
  });
}

async function watchRenewals(made, windowFor) {
  const clients = {};
  for (const db of DBS) clients[db] = new Redis({ host: '127.0.0.1', port: PORT, db, lazyConnect: false });
  const targets = made.filter((m) => windowFor(m) > 0);
  const series = targets.map(() => []);
  const windowMs = Math.max(0, ...targets.map(windowFor));
  const t0 = Date.now();
  for (let n = 0; n < 400 && Date.now() - t0 < windowMs; n++) {
    const now = Date.now() - t0;
    const res = await Promise.all(targets.map((m) => (now <= windowFor(m) ? clients[m.db || 0].pttl(m.key) : null)));
    res.forEach((v, i) => { if (v !== null) series[i].push([now, v]); });
    await sleep(100);
  }
  Object.values(clients).forEach((c) => c.disconnect());
  return targets.map((m, i) => {
    const s = series[i];
    const jumps = [];
    let missing = 0;
    for (let j = 0; j < s.length; j++) {
      if (s[j][1] < 0) missing++;
      if (j > 0 && s[j][1] > s[j - 1][1] + 50) jumps.push(s[j][0]);
    }
    const periods = jumps.slice(1).map((t, j) => t - jumps[j]);
    const vals = s.map((x) => x[1]).filter((v) => v >= 0);
    return { m, samples: s.length, missing, jumps: jumps.length, periods,
      min: vals.length ? Math.min(...vals) : null, max: vals.length ? Math.max(...vals) : null };
  });
}

function installedVersion(m) {
  try { return JSON.parse(fs.readFileSync(path.join(DIR, 'node_modules', m.package, 'package.json'), 'utf8')).version; } catch (_) { return null; }
}

function checkManifest(name, lines, newKeys, expectVersion) {
  const errors = [];
  const made = lines.filter((l) => l.made).map((l) => l.made);
  const notLock = lines.filter((l) => l.not_lock).map((l) => l.not_lock);
  if (!made.length && !notLock.length) errors.push('no made or not_lock lines'); // queues-and-limiters makes only keys that are not locks
  const accounted = new Set();
  for (const m of made) {
    const db = m.db || 0;
    for (const f of ['library', 'package', 'version', 'key', 'type', 'kind', 'owner', 'owner_meaning', 'companions']) {
      if (m[f] === undefined || m[f] === null || m[f] === '') errors.push(`${m.key}: missing ${f}`);
    }
    if (!KINDS.has(m.kind)) errors.push(`${m.key}: bad kind ${m.kind}`);
    if (!(m.lease_ms === null || (Number.isInteger(m.lease_ms) && m.lease_ms > 0))) errors.push(`${m.key}: bad lease_ms`);
    if (m.renewal !== null && !(m.renewal && Number.isFinite(m.renewal.every_ms) && typeof m.renewal.rule === 'string')) errors.push(`${m.key}: bad renewal`);
    if (m.kind === 'semaphore' && !(Number.isInteger(m.permits_total) && Number.isInteger(m.permits_held))) errors.push(`${m.key}: semaphore without permits`);
    if (m.kind === 'job-lock' && !(m.queue && m.job_id)) errors.push(`${m.key}: job-lock without queue/job_id`);
    const installed = installedVersion(m) || expectVersion; // a driver may drive two packages (redis-leader.js)
    if (m.version !== installed) errors.push(`${m.key}: version ${m.version} != installed ${installed}`);
    accounted.add(`${db}\u0000${m.key}`);
    for (const c of m.companions || []) {
      const mm = /^db(\d+):(.*)$/.exec(c);
      accounted.add(mm ? `${mm[1]}\u0000${mm[2]}` : `0\u0000${c}`);
    }
    // Compare with the live key.
    const d = dumpKey(db, m.key);
    if (d.type !== m.type) { errors.push(`${m.key}: type ${d.type}, manifest ${m.type}`); continue; }
    if (m.lease_ms === null ? d.pttl !== -1 : !(d.pttl > 0 && d.pttl <= m.lease_ms)) errors.push(`${m.key}: PTTL ${d.pttl} vs lease ${m.lease_ms}`);
    const owners = m.owners || [m.owner];
    if (d.type === 'string' && d.value !== m.owner) errors.push(`${m.key}: value ${d.value} != owner ${m.owner}`);
    if (d.type === 'hash') {
      const fields = d.value.filter((_, i) => i % 2 === 0);
      // owner_field: the owner is that field's value (ioredfour's fencing index), not a field name
      if (m.owner_field ? d.value[d.value.indexOf(m.owner_field) + 1] !== m.owner : !fields.includes(m.owner))
        errors.push(`${m.key}: hash has no ${m.owner_field ? `${m.owner_field} = ` : 'field '}${m.owner}`);
    }
    if (d.type === 'zset') {
      const members = d.value.filter((_, i) => i % 2 === 0);
      for (const o of owners) if (!members.includes(o)) errors.push(`${m.key}: zset has no member ${o}`);
      if (m.permits_held !== undefined && members.length !== m.permits_held) errors.push(`${m.key}: ${members.length} members, permits_held ${m.permits_held}`);
    }
  }
  for (const n of notLock) {
    if (!n.key || !n.why) errors.push(`not_lock line without key/why: ${JSON.stringify(n)}`);
    accounted.add(`${n.db || 0}\u0000${n.key}`);
  }
  for (const k of newKeys) {
    if (!accounted.has(k)) errors.push(`key ${k.replace('\u0000', ':')} written but not listed in the manifest`);
  }
  return { errors, made, notLock };
}

(async () => {
  try { cli(0, 'PING'); } catch (e) { console.error(`no Redis on 127.0.0.1:${PORT}`); process.exit(2); }
  const runTag = Date.now().toString(36).slice(-5);
  let pass = 0;
  let failCount = 0;
  const measurements = [];
  for (let run = 1; run <= RUNS; run++) {
    for (const [idx, name] of drivers.entries()) {
      const prefix = FIXED_PREFIX || `ck${runTag}${run}${idx}:`;
      const before = scanAll();
      const t0 = Date.now();
      const r = await runDriver(name, prefix);
      const readyMs = Date.now() - t0;
      const errors = [];
      let report = null;
      if (r.error) {
        errors.push(`${r.error}; stderr: ${(r.stderr || '').trim().split('\n').slice(-1)[0] || '(empty)'}`);
      } else {
        if ((r.stderr || '').trim()) errors.push(`unexpected stderr: ${r.stderr.trim().split('\n')[0]}`);
        const after = scanAll();
        const newKeys = [...after].filter((k) => !before.has(k));
        const dump = newKeys.map((k) => { const [db, key] = k.split('\u0000'); return dumpKey(Number(db), key); });
        fs.writeFileSync(path.join(OUT, `run${run}-${name}.dump.json`), JSON.stringify({ manifest: r.lines, dump }, null, 1));
        const made0 = r.lines.filter((l) => l.made);
        const pkgDir = made0.length ? made0[0].made.package : null;
        const aliasDir = { 'redlock (v4)': 'redlock4', 'redlock (v5 beta)': 'redlock5' }[made0.length ? made0[0].made.library : ''] || pkgDir;
        let expectVersion = null;
        try { expectVersion = JSON.parse(fs.readFileSync(path.join(DIR, 'node_modules', aliasDir, 'package.json'), 'utf8')).version; } catch (_) { /* reported below */ }
        report = checkManifest(name, r.lines, newKeys, expectVersion);
        errors.push(...report.errors);
        // Renewals: watch PTTL of auto-renewed keys.
        const windowFor = (m) => {
          if (!m.renewal) return 0;
          if (MEASURE) return 20000;
          return m.renewal.every_ms <= 10000 ? Math.min(2.5 * m.renewal.every_ms + 500, 21000) : 0;
        };
        const watched = await watchRenewals(report.made, windowFor);
        for (const w of watched) {
          const line = { driver: name, key: w.m.key, db: w.m.db || 0, lease_ms: w.m.lease_ms, expected_every_ms: w.m.renewal.every_ms,
            samples: w.samples, renewals_seen: w.jumps, periods_ms: w.periods, min_pttl: w.min, max_pttl: w.max, missing_samples: w.missing };
          measurements.push(line);
          if (w.missing) errors.push(`${w.m.key}: key missing in ${w.missing} samples while held`);
          // A renewal must show up when the window is long enough to contain one.
          if (w.jumps < 1 && w.m.renewal.every_ms * 1.15 < windowFor(w.m)) errors.push(`${w.m.key}: no renewal seen in ${w.samples} samples`);
        }
      }
      const how = run % 2 === 1 ? 'eof' : 'sigterm';
      let stop = { code: null, ms: 0 };
      if (!r.exited) {
        stop = await stopDriver(r.child, how);
        if (stop.code !== 0) errors.push(`exit code ${stop.code} (signal ${stop.signal}) after ${how}`);
        if (stop.ms > 1000) errors.push(`took ${stop.ms} ms to exit after ${how}`);
      }
      const nMade = report ? report.made.length : 0;
      const nNot = report ? report.notLock.length : 0;
      if (errors.length) {
        failCount++;
        console.log(`FAIL run${run} ${name}: ready in ${readyMs} ms, ${nMade} made, ${nNot} not_lock`);
        errors.forEach((e) => console.log(`    - ${e}`));
      } else {
        pass++;
        console.log(`ok   run${run} ${name}: ready in ${readyMs} ms, ${nMade} made, ${nNot} not_lock, stopped by ${how} in ${stop.ms} ms`);
      }
    }
  }
  fs.writeFileSync(path.join(OUT, 'renewals.json'), JSON.stringify(measurements, null, 1));
  for (const m of measurements) {
    console.log(`     renewal ${m.driver} ${m.db ? `db${m.db}:` : ''}${m.key}: lease ${m.lease_ms}, expected every ${m.expected_every_ms} ms, seen ${m.renewals_seen} (periods ${m.periods_ms.join('/') || '-'}), PTTL ${m.min_pttl}..${m.max_pttl}`);
  }
  console.log(`dumps and renewals.json in ${OUT}`);
  console.log(`${pass} passed, ${failCount} failed`);
  process.exit(failCount ? 1 : 0);
})().catch((e) => { console.error(e.stack || e); process.exit(1); });
