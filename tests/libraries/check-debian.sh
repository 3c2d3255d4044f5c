#!/usr/bin/env bash
# Runs every PHP/Python/Ruby lock-library fixture (tests/libraries/{php,python,ruby}) against
# the Redis at 127.0.0.1:PORT, waits for {"ready":true}, dumps TYPE/PTTL/value of every key
# the fixture created, compares them with the fixture's own manifest ({"made":...} and
# {"not_lock":...} lines), stops it (stdin EOF or SIGTERM, alternating), checks it exited 0
# within 1 s and that its locks are gone. Then runs all fixtures at once with distinct
# --prefix values on the same server (the sharing contract).
#
# Usage: tests/libraries/check-debian.sh PORT
#   If nothing listens on PORT, a throw-away redis-server is started there and stopped at
#   the end. Needs the packages of tests/libraries/setup-debian.
#   CHECK_VERBOSE=0 hides the key dumps. CHECK_ONLY=<substring> runs matching fixtures only.
set -euo pipefail

if [[ $# -ne 1 || ! "$1" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 PORT" >&2
  exit 2
fi
PORT=$1
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if ! "$HERE/setup-debian" --check; then
  echo "check-debian: run tests/libraries/setup-debian first" >&2
  exit 1
fi

REDIS_PID=
cleanup() {
  if [[ -n "$REDIS_PID" ]]; then
    kill "$REDIS_PID" 2>/dev/null || true
    wait "$REDIS_PID" 2>/dev/null || true
  fi
}
trap cleanup EXIT
if ! redis-cli -h 127.0.0.1 -p "$PORT" ping >/dev/null 2>&1; then
  redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no \
    --daemonize no --logfile '' >/dev/null 2>&1 &
  REDIS_PID=$!
  for _ in $(seq 1 50); do
    redis-cli -h 127.0.0.1 -p "$PORT" ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  redis-cli -h 127.0.0.1 -p "$PORT" ping >/dev/null 2>&1 || { echo "check-debian: redis-server did not start on $PORT" >&2; exit 1; }
fi

set +e
/usr/bin/python3 - "$HERE" "$PORT" <<'PY'
import json, os, select, signal, subprocess, sys, time
import redis

HERE, PORT = sys.argv[1], int(sys.argv[2])
VERBOSE = os.environ.get("CHECK_VERBOSE", "1") != "0"
ONLY = os.environ.get("CHECK_ONLY", "")
READY_TIMEOUT_S = 25
STOP_LIMIT_S = 1.0
SLACK_MS = 15000          # time between a lock's creation and our PTTL read, generously

FIXTURES = [
    ["php", "php/laravel.php"],
    ["php", "php/laravel.php", "--client", "predis"],
    ["php", "php/symfony-lock.php"],
    ["php", "php/symfony-lock.php", "--client", "predis"],
    ["php", "php/symfony-semaphore.php"],
    ["php", "php/symfony-semaphore.php", "--client", "predis"],
    ["php", "php/malkusch-lock.php"],
    ["/usr/bin/python3", "python/redis-py.py"],
    ["/usr/bin/python3", "python/django-redis.py"],
    ["/usr/bin/python3", "python/rq.py"],
    ["/usr/bin/python3", "python/celery.py"],
    ["/usr/bin/python3", "python/cacheops.py"],
    ["/usr/bin/ruby", "ruby/sidekiq.rb"],
]
FIXTURES = [f for f in FIXTURES if ONLY in " ".join(f)]

conns = {}
def db(n):
    if n not in conns:
        conns[n] = redis.Redis(host="127.0.0.1", port=PORT, db=n, socket_timeout=5)
    return conns[n]

def keys_of(n):
    return set(db(n).scan_iter(count=1000))

def show(v):
    if isinstance(v, bytes):
        try:
            return v.decode()
        except UnicodeDecodeError:
            return "0x" + v.hex()
    return v

def dump(n, key):
    r = db(n)
    t = r.type(key).decode()
    pttl = r.pttl(key)
    if t == "string":
        v = show(r.get(key))
    elif t == "zset":
        v = [(show(m), s) for m, s in r.zrange(key, 0, -1, withscores=True)]
    elif t == "hash":
        v = {show(k): show(x)[:60] for k, x in r.hgetall(key).items()}
    elif t == "list":
        v = [show(x)[:80] for x in r.lrange(key, 0, 2)] + (["..."] if r.llen(key) > 3 else [])
    elif t == "set":
        v = sorted(show(x) for x in r.smembers(key))[:5]
    else:
        v = None
    return t, pttl, v

def start(cmd, prefix):
    full = [cmd[0], os.path.join(HERE, cmd[1])] + cmd[2:] + ["--port", str(PORT), "--prefix", prefix]
    return subprocess.Popen(full, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=HERE)

def read_until_ready(p):
    lines, buf = [], b""
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        r, _, _ = select.select([p.stdout], [], [], 0.2)
        if r:
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                obj = json.loads(line)
                if obj.get("ready") is True:
                    return lines, None
                lines.append(obj)
        elif p.poll() is not None:
            break
    err = p.stderr.read().decode(errors="replace").strip() if p.poll() is not None else ""
    return lines, "no ready line (exit %s) %s" % (p.poll(), err)

def check_made(m, errs):
    key, n = m["key"], m.get("db", 0)
    r = db(n)
    for f in ("library", "package", "version", "key", "type", "kind", "owner", "owner_meaning", "lease_ms", "renewal", "companions"):
        if f not in m:
            errs.append("%s: manifest lacks %s" % (key, f))
    if m.get("kind") not in ("mutex", "rw", "semaphore", "job-lock", "latch"):
        errs.append("%s: bad kind %r" % (key, m.get("kind")))
    t, pttl, v = dump(n, key)
    if VERBOSE:
        print("    db%d %-70s %-6s pttl=%-10s %s" % (n, key, t, pttl, json.dumps(v)[:160]))
    if t != m["type"]:
        errs.append("%s: type %s, manifest says %s" % (key, t, m["type"]))
        return
    lease = m["lease_ms"]
    if "weight_key_pttl_after_refusal" in m:
        expect_no_ttl = m["weight_key_pttl_after_refusal"] == -1
    else:
        expect_no_ttl = lease is None
    extra = 10000 if m["kind"] == "semaphore" else 0   # Symfony Semaphore: EXPIREAT max+10 s
    if expect_no_ttl:
        if pttl != -1:
            errs.append("%s: PTTL %s, expected -1 (no TTL)" % (key, pttl))
    elif not (lease + extra - SLACK_MS <= pttl <= lease + extra):
        errs.append("%s: PTTL %s not within [%d, %d]" % (key, pttl, lease + extra - SLACK_MS, lease + extra))
    owners = m["owner"] if isinstance(m["owner"], list) else [m["owner"]]
    if t == "string":
        if v != m["owner"]:
            errs.append("%s: value %r != owner %r" % (key, v, m["owner"]))
    elif t == "zset":
        members = {mm: s for mm, s in v}
        for o in owners:
            if o not in members:
                errs.append("%s: owner %s not a member" % (key, o))
        if m["kind"] == "rw":
            has_w = "__write__" in members
            if has_w != (m.get("mode") == "write"):
                errs.append("%s: __write__ present=%s but mode=%s" % (key, has_w, m.get("mode")))
            if len(members) != len(owners) + (1 if has_w else 0):
                errs.append("%s: unexpected members %s" % (key, list(members)))
        if m["kind"] == "semaphore":
            if set(members) != set(owners):
                errs.append("%s: members %s != owners" % (key, list(members)))
            if int(sum(members.values())) != m["permits_held"]:
                errs.append("%s: weights sum %s != permits_held %s" % (key, sum(members.values()), m["permits_held"]))
            if m["permits_held"] > m["permits_total"]:
                errs.append("%s: permits_held > permits_total" % key)
    for c in m["companions"]:
        ct, cpttl, cv = dump(n, c)
        if VERBOSE:
            print("    db%d %-70s %-6s pttl=%-10s %s  (companion)" % (n, c, ct, cpttl, json.dumps(cv)[:140]))
        if ct == "none":
            errs.append("%s: companion %s missing" % (key, c))
        elif m["kind"] == "semaphore" and ct == "zset":
            if {mm for mm, _ in cv} != set(owners):
                errs.append("%s: companion %s members differ" % (key, c))
    ren = m["renewal"]
    if ren is not None:
        time.sleep(min(ren["every_ms"] * 2, 5000) / 1000.0 + 0.2)
        p2 = r.pttl(key)
        if not (lease - ren["every_ms"] - 1000 <= p2 <= lease):
            errs.append("%s: not renewed (PTTL %s after %d ms)" % (key, p2, ren["every_ms"] * 2))

def check_not_lock(nl, errs):
    key, n = nl["key"], nl.get("db", 0)
    t, pttl, v = dump(n, key)
    if VERBOSE:
        print("    db%d %-70s %-6s pttl=%-10s %s  (not_lock)" % (n, key, t, pttl, json.dumps(v)[:120]))
    if t == "none":
        errs.append("not_lock %s missing" % key)
    elif "type" in nl and nl["type"] != t:
        errs.append("not_lock %s: type %s, manifest says %s" % (key, t, nl["type"]))

def stop(p, how):
    t0 = time.monotonic()
    if how == "eof":
        p.stdin.close()
    else:
        p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return None, 5.0
    return rc, time.monotonic() - t0

def run_one(idx, cmd, prefix):
    name = " ".join(cmd[1:])
    errs = []
    before = {n: keys_of(n) for n in (0, 1)}
    p = start(cmd, prefix)
    lines, err = read_until_ready(p)
    if err:
        p.kill(); p.wait()
        return name, [err]
    made = [l["made"] for l in lines if "made" in l]
    nls = [l["not_lock"] for l in lines if "not_lock" in l]
    bad = [l for l in lines if "made" not in l and "not_lock" not in l]
    if bad:
        errs.append("unexpected lines %s" % bad[:2])
    for m in made:
        check_made(m, errs)
    for nl in nls:
        check_not_lock(nl, errs)
    # Every key that appeared must be accounted for.
    accounted = {(m.get("db", 0), k) for m in made for k in [m["key"]] + m["companions"]}
    accounted |= {(nl.get("db", 0), nl["key"]) for nl in nls}
    for n in (0, 1):
        for k in keys_of(n) - before[n]:
            if (n, k.decode(errors="replace")) not in accounted:
                t, pttl, v = dump(n, k)
                errs.append("unaccounted key db%d %s (%s, pttl %s)" % (n, show(k), t, pttl))
    how = "eof" if idx % 2 == 0 else "term"
    rc, took = stop(p, how)
    if rc != 0:
        errs.append("exit code %s after %s (stderr: %s)" % (rc, how, p.stderr.read().decode(errors="replace").strip()[:200]))
    elif took > STOP_LIMIT_S:
        errs.append("took %.2f s to exit after %s" % (took, how))
    time.sleep(0.05)
    for m in made:
        n = m.get("db", 0)
        left = db(n).exists(m["key"])
        if left and db(n).type(m["key"]) == b"string" and db(n).get(m["key"]).decode(errors="replace") == m["owner"]:
            errs.append("%s still held after the fixture stopped" % m["key"])
    print("  %s: %d locks, %d not_lock, stopped by %s in %.2f s" % (name, len(made), len(nls), how, took or -1))
    return name, errs

passed = failed = 0
print("check-debian: sequential run on 127.0.0.1:%d" % PORT)
for i, cmd in enumerate(FIXTURES):
    name, errs = run_one(i, cmd, "fx%d:" % i)
    if errs:
        failed += 1
        print("FAIL %s" % name)
        for e in errs:
            print("     - %s" % e)
    else:
        passed += 1
        print("PASS %s" % name)

# All at once, distinct prefixes, one server.
print("check-debian: concurrent run (all fixtures at once, distinct --prefix)")
procs = [(cmd, start(cmd, "c%d:" % i)) for i, cmd in enumerate(FIXTURES)]
errs = []
all_made = []
for cmd, p in procs:
    lines, err = read_until_ready(p)
    if err:
        errs.append("%s: %s" % (cmd[1], err))
        continue
    for l in lines:
        if "made" in l:
            all_made.append(l["made"])
saved = VERBOSE
VERBOSE = False
for m in all_made:
    e = []
    check_made(m, e)
    errs += e
VERBOSE = saved
keys = [(m.get("db", 0), m["key"]) for m in all_made]
if len(keys) != len(set(keys)):
    errs.append("two fixtures reported the same lock key")
for i, (cmd, p) in enumerate(procs):
    if p.poll() is None:
        rc, took = stop(p, "eof" if i % 2 else "term")
        if rc != 0:
            errs.append("%s: exit %s" % (cmd[1], rc))
        elif took > STOP_LIMIT_S:
            errs.append("%s: took %.2f s to exit" % (cmd[1], took))
if errs:
    failed += 1
    print("FAIL concurrent (%d locks)" % len(all_made))
    for e in errs:
        print("     - %s" % e)
else:
    passed += 1
    print("PASS concurrent (%d locks from %d fixtures)" % (len(all_made), len(procs)))

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
rc=$?
set -e
exit $rc
