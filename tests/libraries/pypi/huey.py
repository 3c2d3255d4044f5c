"""LockScope fixture: huey 3.5.4 from PyPI (RedisHuey, on redis 8.1.0): task locks kept as fields of huey's
shared results hash (issue 39), left behind by workers killed with SIGKILL inside them.

Runs in tests/libraries/pypi/.venv. What huey writes (huey/storage.py, huey/api.py of 3.5.4):
  RedisStorage.result_key: 'huey.results.<name>', one hash per huey instance, where <name> is the instance's
    name with every character outside [A-Za-z0-9_] removed (clean_name)
  TaskLock._key: '<name>.lock.<lock name>', a FIELD of that hash; TaskLock.acquire is put_if_empty(key, '1'):
    HSETNX with the pickle of the str '1' (no holder named), and HEXPIRE only when lock_task(ttl=...) is given
    (Redis 7.4+); released by HDEL in __exit__, so a holder that dies leaves the field for good
  put(key, value) and task results: HSET of other fields of the same hash (a task's result under its uuid4 id)
  flush_locks(*names): HDEL of the locks this process has constructed (Huey._locks, filled by each TaskLock's
    __init__) and of the names given; a lock only ever made in another process's context manager is not among
    them: this driver checks it (a second instance, '<prefix>ledger': its decorated task's lock is flushed, its
    context manager's lock is left and listed)
Usage: huey.py --port N [--prefix P]
"""
import os
import signal
import subprocess
import sys
import time
from importlib.metadata import version

sys.dont_write_bytecode = True  # keep the source tree clean
import _pypi  # noqa: E402  (first: it keeps this directory from shadowing the libraries)
from _pypi import fx  # noqa: E402

CHILD = "--child" in sys.argv
if CHILD:
    sys.argv.remove("--child")
args, r = _pypi.start(__doc__)

from huey import RedisHuey  # noqa: E402

NAME = args.prefix.replace(":", "") + "mailer"
huey = RedisHuey(NAME, host="127.0.0.1", port=args.port, socket_timeout=5)
HASH = huey.storage.result_key
# A second instance, for what flush_locks() reaches (what the consumer's -f/--flush-locks calls at start).
NAME2 = args.prefix.replace(":", "") + "ledger"
huey2 = RedisHuey(NAME2, host="127.0.0.1", port=args.port, socket_timeout=5)


@huey.task()
@huey.lock_task("send-digest")
def send_digest():
    # Inside the lock: tell the parent, then wait for the SIGKILL.
    sys.stdout.write("held\n")
    sys.stdout.flush()
    time.sleep(60)


@huey.task()
def add(a, b):
    return a + b


@huey2.task()
@huey2.lock_task("close-books")
def close_books():
    sys.stdout.write("held\n")
    sys.stdout.flush()
    time.sleep(60)


def child(what):
    if what == "decorator":
        # What a consumer's worker does with a task: dequeue it and execute it (Worker.process_task).
        send_digest()
        huey.execute(huey.dequeue())
    elif what == "decorator2":
        close_books()
        huey2.execute(huey2.dequeue())
    elif what == "context2":
        with huey2.lock_task("sync-ledger"):
            sys.stdout.write("held\n")
            sys.stdout.flush()
            time.sleep(60)
    else:
        with huey.lock_task("nightly"):
            sys.stdout.write("held\n")
            sys.stdout.flush()
            time.sleep(60)


if CHILD:
    child(os.environ["HUEY_FIXTURE_CHILD"])
    sys.exit(0)

r.delete(HASH, huey.storage.queue_key, huey2.storage.result_key, huey2.storage.queue_key)  # an earlier run's


def killed_inside(what):
    """Runs a child that takes a lock through huey and SIGKILLs it while it holds it."""
    p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", "--port", str(args.port),
                          "--prefix", args.prefix], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                         env=dict(os.environ, HUEY_FIXTURE_CHILD=what))
    line = p.stdout.readline()
    if line.strip() != b"held":
        p.kill()
        fx.fail("the %s child did not take its lock (%r)" % (what, line))
    os.kill(p.pid, signal.SIGKILL)
    p.wait(5)


base = dict(library="huey", package="huey", version=version("huey"), redis_py=version("redis"),
            type="hash", kind="mutex", key=HASH, lease_ms=None, huey_name=NAME)
killed_inside("decorator")
field = "%s.lock.send-digest" % NAME
if not r.hexists(HASH, field):
    fx.fail("huey left no %s field" % field)
fx.made(**base, case="decorator-killed", field=field,
        api="@huey.task() @huey.lock_task('send-digest') def send_digest(); the worker executing it SIGKILLed")
killed_inside("context-manager")
field = "%s.lock.nightly" % NAME
if not r.hexists(HASH, field):
    fx.fail("huey left no %s field" % field)
fx.made(**base, case="context-manager-killed", field=field,
        api="with huey.lock_task('nightly'): in a process SIGKILLed inside it")

# What huey's own remedy reaches: flush_locks() in a process that has imported the tasks (as the consumer
# does with -f) deletes the decorated task's lock, constructed at import, and not a context manager's lock
# that only ever ran in another process.
killed_inside("decorator2")
killed_inside("context2")
flushed = huey2.flush_locks()
if flushed != {"close-books"}:
    fx.fail("huey2.flush_locks() flushed %r, not {'close-books'}" % (flushed,))
field = "%s.lock.sync-ledger" % NAME2
if not r.hexists(huey2.storage.result_key, field):
    fx.fail("flush_locks() reached the context manager's lock %s" % field)
fx.made(**dict(base, key=huey2.storage.result_key, huey_name=NAME2), case="context-manager-not-flushed",
        field=field, api="with huey2.lock_task('sync-ledger'): SIGKILLed inside; then huey2.flush_locks() in a "
        "process that imported the tasks returned {'close-books'} and left this one")

# Ordinary data of the same hash: a value put() and a task's result (executed here, as a worker would).
huey.put("report-totals", {"sent": 1200, "bounced": 7})
fx.not_lock(HASH, "huey.put('report-totals', …): a pickled dict in huey's results hash", field="report-totals",
            strict=True)
result = add(2, 3)
huey.execute(huey.dequeue())
if not r.hexists(HASH, result.id):
    fx.fail("huey stored no result under %s" % result.id)
fx.not_lock(HASH, "a task's result: the pickle of 5 under its task id (uuid4)", field=result.id, strict=True)
fx.ready_and_hold()
sys.exit(0)
