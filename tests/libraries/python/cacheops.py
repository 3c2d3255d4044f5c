#!/usr/bin/python3
"""LockScope fixture: django-cacheops 6.2 (Debian python3-django-cacheops) dog-pile lock.

cacheops/redis.py CacheopsRedis.getting(key, lock=True) -> _get_or_lock(): a Lua script
  SET <cache_key> "LOCK" NX EX 60   (LOCK_TIMEOUT = 60) and DEL <cache_key>:signal
The lock lives in the very key the cached result will later occupy (e.g. "<prefix>as:<md5>"
for @cached_as, "<prefix>q:<md5>" for querysets). Waiters block in
BRPOPLPUSH <cache_key>:signal ... 60; _release_lock deletes the key if it still says "LOCK",
then LPUSH <cache_key>:signal 1 + EXPIRE 1 s. No owner is stored.
CACHEOPS_PREFIX (default: empty) is set to --prefix here.
Usage: cacheops.py --port N [--prefix P]
"""
import sys
import threading
import time

import os as _os  # noqa: E402
sys.dont_write_bytecode = True  # keep the source tree clean
_HERE = _os.path.dirname(_os.path.abspath(__file__))
sys.path.insert(0, _HERE)
import _fixture as fx  # noqa: E402

# This directory must not shadow the libraries (rq.py, celery.py...).
sys.path[:] = [p for p in sys.path if _os.path.abspath(p or ".") != _HERE]

args = fx.start(__doc__)
P = args.prefix

import django  # noqa: E402
from django.conf import settings  # noqa: E402

settings.configure(
    INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "cacheops"],
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
    CACHEOPS_REDIS="redis://127.0.0.1:%d/0" % args.port,
    CACHEOPS_PREFIX=lambda query: P,
    CACHEOPS={"auth.*": {"ops": "all", "timeout": 600}},
    CACHEOPS_LRU=False,
    USE_TZ=True,
)
django.setup()

import cacheops  # noqa: E402
import redis  # noqa: E402
from cacheops import cached_as  # noqa: E402
from django.contrib.auth.models import Group  # noqa: E402

raw = redis.Redis(host="127.0.0.1", port=args.port, socket_timeout=5, socket_connect_timeout=5)
raw.ping()
for k in raw.scan_iter(match=P + "as:*", count=1000):
    raw.delete(k)


class _Stop(Exception):
    pass


@cached_as(Group, lock=True, timeout=300)
def expensive_report(year):
    # Runs while the dog-pile lock is held; raising keeps the result from being cached.
    fx._stop.wait()
    raise _Stop()


def holder():
    try:
        expensive_report(2026)
    except _Stop:
        pass


t = threading.Thread(target=holder, daemon=True)
t.start()
key = None
deadline = time.monotonic() + 10
while key is None and time.monotonic() < deadline:
    for k in raw.scan_iter(match=P + "as:*", count=1000):
        if raw.get(k) == b"LOCK":
            key = k.decode()
    if key is None:
        time.sleep(0.05)
if key is None:
    fx.fail("cacheops lock key did not appear")

fx.made(library="django-cacheops", package="python3-django-cacheops", version=cacheops.__version__,
        debian_version=fx.deb_version("python3-django-cacheops"), redis_py=redis.__version__,
        key=key, type="string", kind="mutex", owner="LOCK",
        owner_meaning='no owner: the literal "LOCK" placeholder in the cache key itself',
        lease_ms=60000, companions=[],
        signal_key=key + ":signal",
        api="@cached_as(Group, lock=True) function running (CacheopsRedis.getting(key, lock=True))")

fx.ready_and_hold()
t.join(2)
sys.exit(0)
