"""LockScope fixture: sherlock 0.4.1 from PyPI (RedisLock, on redis 8.1.0). A library outside the catalog
(issue 31): no format of LockScope's names it.

Runs in tests/libraries/pypi/.venv. What sherlock/lock.py writes:
  RedisLock._key_name: '<namespace>_<lock_name>', or the bare lock_name without a namespace
  RedisLock._acquire: owner = str(uuid.uuid4()), a new one at each acquire; a Lua script runs
    SETNX key owner, then EXPIRE key expire (seconds; 60 by default)
  RedisLock._renew (public renew()): EXPIRE key expire again when GET key == owner; sherlock never renews by
    itself, so this driver's own thread calls renew() every 2 s on one lock (an application's heartbeat)
Usage: sherlock.py --port N [--prefix P]
"""
import sys
import threading
from importlib.metadata import version

sys.dont_write_bytecode = True  # keep the source tree clean
import _pypi  # noqa: E402  (first: it keeps this directory from shadowing the libraries)
from _pypi import fx  # noqa: E402

args, r = _pypi.start(__doc__)
P = args.prefix

from sherlock import RedisLock  # noqa: E402

base = dict(library="sherlock", package="sherlock", version=version("sherlock"), redis_py=version("redis"),
            type="string", kind="mutex")
UUID4 = "str(uuid.uuid4()), a new one at each acquire (sherlock RedisLock._acquire)"
held = []


def take(case, name, lease_s, namespace=None, renewal=None):
    lock = RedisLock(name, client=r, expire=lease_s, namespace=namespace)
    r.delete(lock._key_name)  # a killed earlier run's
    if not lock.acquire(blocking=False):
        fx.fail("could not acquire %s" % lock._key_name)
    held.append(lock)
    fx.made(**base, case=case, key=lock._key_name, owner=lock._owner, owner_meaning=UUID4,
            lease_ms=lease_s * 1000, renewal=renewal,
            api="RedisLock(%r, client=r, expire=%d, namespace=%r).acquire(blocking=False)"
            % (name, lease_s, namespace))
    return lock


# 1. A namespaced lock: key '<namespace>_<name>'.
take("namespaced", P + "invoices", 600, namespace="billing")
# 2. No namespace: the bare name, nothing that says lock.
take("bare-name", P + "nightly-report", 600)
# 3. Renewed by the application every 2 s through renew() (EXPIRE back to 6 s).
heartbeat = take("renewed", P + "reindex", 6, namespace="search",
                 renewal={"every_ms": 2000, "rule": "the application calls RedisLock.renew() every 2 s: "
                          "EXPIRE key 6 when GET key == owner"})


def renew():
    while not fx.stopping():
        try:
            heartbeat.renew()
        except Exception as e:  # the connection goes away when the driver exits
            if not fx.stopping():
                fx.fail("sherlock renew() failed: %s" % e)
        threading.Event().wait(2)


threading.Thread(target=renew, daemon=True).start()
fx.ready_and_hold()
sys.exit(0)
