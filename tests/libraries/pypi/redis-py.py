"""LockScope fixture: redis-py from PyPI (redis 8.1.0, pinned in requirements.txt) ``redis.lock.Lock``.

Runs in tests/libraries/pypi/.venv. What redis/lock.py writes (the same as Debian's 4.3.4):
  Lock.acquire: token = uuid.uuid1().hex unless acquire(token=...) gives one
  Lock.do_acquire: SET <name> <token> NX [PX int(timeout*1000)]; no TTL when timeout is None (the default)
  Lock.extend(t): LUA_EXTEND_SCRIPT, PEXPIRE to the remaining PTTL + t (replace_ttl=False)
A blocked waiter retries SET NX every `sleep` seconds client-side and stores nothing.
Issue 41: a Lock kept alive by code built on redis-py (a job runner's keep-alive thread calling
extend(5, replace_ttl=True) every second): redis-py does not renew on its own, but this lock is renewed.
Usage: redis-py.py --port N [--prefix P]
"""
import sys
import threading
from importlib.metadata import version

sys.dont_write_bytecode = True  # keep the source tree clean
import _pypi  # noqa: E402  (first: it keeps this directory from shadowing the libraries)
from _pypi import fx  # noqa: E402

args, r = _pypi.start(__doc__)
P = args.prefix

base = dict(library="redis-py", package="redis (PyPI)", version=version("redis"), type="string", kind="mutex")
UUID1 = "uuid.uuid1().hex: 32 lowercase hex chars, a time-based UUID (redis/lock.py Lock.acquire)"

names = [P + "pypi:nightly-report", P + "pypi:billing", P + "pypi:extended", P + "pypi:kept-alive"]
r.delete(*names)  # leftovers of a killed earlier run (the first one never expires)
held = []


def take(name, **lock_kw):
    lock = r.lock(name, **lock_kw)
    if not lock.acquire(blocking=False):
        fx.fail("could not acquire %s" % name)
    held.append(lock)
    return lock


def report(lock, api, lease_ms, **extra):
    fx.made(**base, key=lock.name, owner=fx.decode(lock.local.token), owner_meaning=UUID1, lease_ms=lease_ms,
            api=api, **extra)


# 1. The default: no timeout, so no TTL at all.
report(take(names[0]), "Redis.lock(%r).acquire(blocking=False)  (timeout=None: no TTL)" % names[0],
       None)

# 2. With a timeout, and a waiter that blocks on it until its blocking_timeout.
billing = take(names[1], timeout=600)
report(billing, "Redis.lock(%r, timeout=600).acquire(blocking=False)" % names[1], 600000)
fx.gives_up(r.lock(names[1], timeout=600, sleep=0.1, blocking_timeout=0.5).acquire)

# 3. extend(): the added seconds go on top of the remaining TTL.
ext = take(names[2], timeout=300)
ext.extend(300)
report(ext, "Redis.lock(%r, timeout=300).acquire(blocking=False), then .extend(300)  (adds to the remaining TTL)"
       % names[2], 600000)

# 4. Kept alive every second by its holder's thread, as a job runner built on redis-py does (issue 41).
# thread_local=False: the keep-alive thread extends the token its holder took.
kept = take(names[3], timeout=5, thread_local=False)
report(kept, "Redis.lock(%r, timeout=5, thread_local=False).acquire(blocking=False); a thread calls "
       ".extend(5, replace_ttl=True) every second" % names[3], 5000,
       renewal={"every_ms": 1000, "rule": "the holder's keep-alive thread: lock.extend(5, replace_ttl=True) every 1 s"})


def keep_alive():
    while not fx._stop.wait(1.0):
        try:
            kept.extend(5, replace_ttl=True)
        except Exception as e:  # pragma: no cover
            fx.fail("extend of %s failed: %s" % (names[3], e))


threading.Thread(target=keep_alive, daemon=True).start()
fx.ready_and_hold()
sys.exit(0)
