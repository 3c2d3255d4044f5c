// node redlock 4.x as its users run it, for bench/run: N concurrent workers in one process sharing one
// ioredis client (node's natural model), redlock's default retry settings.
// uncontended: worker i locks and unlocks its own resource.  contended: one resource, held cs_ms each time.
// Prints one JSON object: cycles_per_s, hand-off p50/p99 (us), Jain fairness.
const Redis = require('ioredis');
const Redlock = require('redlock');

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf('--' + name); return i >= 0 ? args[i + 1] : dflt; };
const mode = args[0];
const port = Number(opt('port'));
const workers = Number(opt('workers', 8));
const seconds = Number(opt('seconds', 3));
const csMs = Number(opt('cs-ms', 1));

const client = new Redis({ host: '127.0.0.1', port });
const redlock = new Redlock([client]); // defaults: driftFactor 0.01, retryCount 10, retryDelay 200, retryJitter 200
redlock.on('clientError', () => {});
const now = () => process.hrtime.bigint();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const stop = Date.now() + seconds * 1000;
  const counts = new Array(workers).fill(0);
  const events = [];
  const start = now();
  await Promise.all([...Array(workers).keys()].map(async (i) => {
    const resource = mode === 'uncontended' ? `peer:redlock:${i}` : 'peer:redlock:shared';
    while (Date.now() < stop) {
      let lock;
      try { lock = await redlock.lock(resource, 10000); } catch (e) { continue; } // gave up after its retries
      const got = now();
      if (mode === 'contended') await sleep(csMs);
      const released = now();
      await lock.unlock().catch(() => {});
      counts[i] += 1;
      if (mode === 'contended') events.push([got, released, i]);
    }
  }));
  const elapsed = Number(now() - start) / 1e9;
  events.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const handoffs = [];
  for (let k = 1; k < events.length; ++k)
    if (events[k][2] !== events[k - 1][2]) handoffs.push(Number(events[k][0] - events[k - 1][1]) / 1000);
  handoffs.sort((a, b) => a - b);
  const pct = (p) => handoffs.length ? handoffs[Math.min(handoffs.length - 1, Math.max(0, Math.ceil(p / 100 * handoffs.length) - 1))] : 0;
  const s = counts.reduce((x, y) => x + y, 0), sq = counts.reduce((x, y) => x + y * y, 0);
  console.log(JSON.stringify({ cycles_per_s: s / elapsed, handoff_p50_us: pct(50), handoff_p99_us: pct(99),
                               handoffs: handoffs.length, fairness_jain: sq ? s * s / (counts.length * sq) : 0 }));
  client.disconnect();
}
main().catch((e) => { console.error(e); process.exit(1); });
