"""LockScope fixture: python-redis-lock 4.0.1 from PyPI (module redis_lock, on redis 8.1.0).

Runs in tests/libraries/pypi/.venv. What redis_lock/__init__.py writes:
  Lock.__init__: key 'lock:' + name, signal list 'lock-signal:' + name; id = b64encode(urandom(18)) (24
    characters, no padding) unless id= is given
  Lock.acquire: SET lock:<name> <id> NX [EX expire]; no TTL when expire is None (the default); a blocked
    acquire waits in BLPOP lock-signal:<name>
  auto_renewal=True: a daemon thread runs EXTEND_SCRIPT (EXPIRE lock:<name> expire) every expire*2/3 s
  release / reset: UNLOCK_SCRIPT deletes the lock and leaves lock-signal:<name> = [1] with PEXPIRE
    signal_expire (1000 ms by default) to wake the waiters
Usage: python-redis-lock.py --port N [--prefix P]
"""
import sys
import threading
from importlib.metadata import version

sys.dont_write_bytecode = True  # keep the source tree clean
import _pypi  # noqa: E402  (first: it keeps this directory from shadowing the libraries)
from _pypi import fx  # noqa: E402

args, r = _pypi.start(__doc__)
P = args.prefix

import redis  # noqa: E402
import redis_lock  # noqa: E402

base = dict(library="python-redis-lock", package="python-redis-lock", version=version("python-redis-lock"),
            redis_py=version("redis"), type="string", kind="mutex")
ID = "Lock id: b64encode(urandom(18)), 24 characters of A-Za-z0-9+/ without padding (redis_lock Lock.__init__)"
names = ["report-job", "nightly-export", "migrations", "deploy", "cache-warm"]
names = [P + n for n in names]
r.delete(*["lock:" + n for n in names], *["lock-signal:" + n for n in names])  # a killed earlier run's
held = []


def take(name, api, lease_ms, renewal=None, owner_meaning=ID, **kw):
    lock = redis_lock.Lock(r, name, **kw)
    if not lock.acquire(blocking=False):
        fx.fail("could not acquire lock:%s" % name)
    held.append(lock)
    fx.made(**base, key="lock:" + name, owner=lock.id, owner_meaning=owner_meaning, lease_ms=lease_ms,
            renewal=renewal, companions_when_present=["lock-signal:" + name], api=api)
    return lock


# 1. A fixed expire, and a waiter blocked in BLPOP lock-signal:<name> for as long as the fixture holds.
take(names[0], "redis_lock.Lock(r, %r, expire=600).acquire(blocking=False)" % names[0], 600000, expire=600)
waiting = threading.Event()


def waiter():
    # Its own connection: BLPOP blocks longer than the driver's 5 s socket timeout.
    w = redis.StrictRedis(host="127.0.0.1", port=args.port, socket_connect_timeout=5)
    waiting.set()
    try:
        redis_lock.Lock(w, names[0], expire=600).acquire(blocking=True, timeout=600)
    except Exception:
        pass  # the connection is cut when the driver exits


threading.Thread(target=waiter, daemon=True).start()
waiting.wait(5)

# 2. auto_renewal=True: the library's own renewer thread (EXPIRE every expire*2/3 = 4 s).
take(names[1], "redis_lock.Lock(r, %r, expire=6, auto_renewal=True).acquire(blocking=False)" % names[1], 6000,
     renewal={"every_ms": 4000, "rule": "auto_renewal=True: daemon thread runs EXPIRE lock:<name> expire every "
              "expire*2/3 s (redis_lock Lock._lock_renewer)"},
     expire=6, auto_renewal=True)

# 3. The default expire=None: no TTL, held until release() or reset().
take(names[2], "redis_lock.Lock(r, %r).acquire(blocking=False)  (expire=None: no TTL)" % names[2], None)

# 4. An id of the application's choosing.
take(names[3], "redis_lock.Lock(r, %r, expire=600, id='deployer@host-3').acquire(blocking=False)" % names[3],
     600000, owner_meaning="the application's id= (stored as given)", expire=600, id="deployer@host-3")

# 5. A released lock: only its signal list is left. signal_expire is raised from 1 s so that it outlives
# the scan; with the default it is gone a second after the release.
released = redis_lock.Lock(r, names[4], expire=600, signal_expire=600000)
if not released.acquire(blocking=False):
    fx.fail("could not acquire lock:%s" % names[4])
released.release()
fx.not_lock("lock-signal:" + names[4], "python-redis-lock release signal list ([1], PEXPIRE signal_expire) left "
            "by releasing lock:%s; it wakes BLPOP waiters and names no holder" % names[4], type="list")

fx.ready_and_hold()
sys.exit(0)
