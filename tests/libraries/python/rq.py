#!/usr/bin/python3
"""LockScope fixture: RQ 1.13 (Debian python3-rq) — the keys it uses as locks.

* rq/scheduler.py RQScheduler.acquire_locks():
    SET rq:scheduler-lock:<queue> <os.getpid()> NX EX interval+60   (interval = 1 -> 61 s)
  renewed by RQScheduler.heartbeat() (EXPIRE ... interval+60) on every scheduler loop,
  i.e. every `interval` seconds; released by release_locks() = plain DEL (no owner check).
* rq/queue.py Queue.acquire_cleaning_lock():
    SET rq:clean_registries:<queue> 1 NX EX 899   (a 15-minute "recently cleaned" latch,
  never deleted, only expires).
* rq/registry.py StartedJobRegistry ('rq:wip:<queue>', a lease sorted set): Worker.prepare_job_execution()
  -> Job.heartbeat() -> ZADD rq:wip:<queue> <now + heartbeat ttl> <job id>, the deadline in Unix seconds
  (Worker.get_heartbeat_ttl: min(job timeout, job_monitoring_interval 30) + 60 = 90 s), moved on by
  maintain_heartbeats every job_monitoring_interval; cleanup() takes back jobs whose deadline passed.
* Its sorted sets that are no leases (issue 41): ScheduledJobRegistry 'rq:scheduled:<queue>' (enqueue_in:
  scores are run-at times in Unix seconds) and FinishedJobRegistry 'rq:finished:<queue>' (scores are when a
  result expires: now + result_ttl 500 s) - job ids scored with times near now too.
The worker/queue/job keys it also writes are reported as not_lock.
Usage: rq.py --port N [--prefix P]
"""
import os
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

import redis  # noqa: E402
import rq  # noqa: E402
from rq import Queue, Worker  # noqa: E402
from rq.scheduler import RQScheduler  # noqa: E402

r = redis.Redis(host="127.0.0.1", port=args.port, socket_timeout=5, socket_connect_timeout=5)
r.ping()
base = dict(library="RQ", package="python3-rq", version=rq.__version__,
            debian_version=fx.deb_version("python3-rq"), redis_py=redis.__version__)

qname = P + "default"
queue = Queue(qname, connection=r)
worker_name = P + "worker-1"
sched_key = RQScheduler.get_locking_key(qname)
# Leftovers of a killed earlier run.
r.delete(sched_key, queue.registry_cleaning_key, Worker.redis_worker_namespace_prefix + worker_name)

# 1. The scheduler lock, exactly as `rq worker --with-scheduler` takes it.
INTERVAL = 1
scheduler = RQScheduler([queue], connection=r, interval=INTERVAL)
if qname not in scheduler.acquire_locks():
    fx.fail("could not acquire %s" % sched_key)
fx.made(**base, key=sched_key, type="string", kind="mutex",
        owner=fx.decode(r.get(sched_key)),
        owner_meaning="decimal PID (os.getpid()) of the process running the scheduler; Queue.scheduler_pid reads it back",
        lease_ms=(INTERVAL + 60) * 1000,
        renewal={"every_ms": INTERVAL * 1000,
                 "rule": "RQScheduler.heartbeat(): EXPIRE key interval+60 on every scheduler loop (RQScheduler.work)"},
        api="RQScheduler([Queue(%r)], connection, interval=1).acquire_locks()" % qname)

# 2. The registry-cleaning latch a worker takes before cleaning a queue's registries.
if not queue.acquire_cleaning_lock():
    fx.fail("could not acquire %s" % queue.registry_cleaning_key)
fx.made(**base, key=queue.registry_cleaning_key, type="string", kind="latch",
        owner=fx.decode(r.get(queue.registry_cleaning_key)),
        owner_meaning='no owner: the constant "1"',
        lease_ms=899000,
        api="Queue(%r).acquire_cleaning_lock()  (Worker.clean_registries)" % qname)

# Keys that are not locks but carry pids/hosts/TTLs.
worker = Worker([queue], connection=r, name=worker_name)
worker.register_birth()
fx.not_lock(worker.key, "RQ worker registration hash (birth, last_heartbeat, pid, hostname, queues...), TTL worker_ttl+60 = 480 s, refreshed by the worker heartbeat",
            type="hash")
fx.not_lock("rq:workers", "RQ set of all worker keys (shared by every RQ user of this db)", type="set")
fx.not_lock("rq:workers:" + qname, "RQ set of the worker keys serving one queue", type="set")
job = queue.enqueue("os.getpid", job_id=P.replace(":", "-") + "job-1")
fx.not_lock(job.key.decode() if isinstance(job.key, bytes) else job.key,
            "RQ job hash (status, data, origin, created_at...)", type="hash")
fx.not_lock(queue.key, "RQ queue: list of job ids", type="list")

# 3. A job being run: in the StartedJobRegistry with the worker's lease deadline, as Worker.execute_job
# leaves it while the work horse runs it (prepare_job_execution, without forking the horse).
from datetime import timedelta  # noqa: E402
from rq.registry import FinishedJobRegistry, ScheduledJobRegistry, StartedJobRegistry  # noqa: E402

started_reg = StartedJobRegistry(qname, connection=r)
finished_reg = FinishedJobRegistry(qname, connection=r)
scheduled_reg = ScheduledJobRegistry(qname, connection=r)
r.delete(started_reg.key, finished_reg.key, scheduled_reg.key)
running = queue.enqueue("os.getpid")  # a uuid4 job id, RQ's default
worker.prepare_job_execution(running)
deadline = r.zscore(started_reg.key, running.id)
if deadline is None:
    fx.fail("prepare_job_execution put no deadline in %s" % started_reg.key)
fx.made(**base, key=started_reg.key, type="zset", kind="job-lock", owner=running.id,
        owner_meaning="the id of the job a worker runs, scored with the deadline of its lease in Unix seconds "
                      "(now + Worker.get_heartbeat_ttl = 90 s)",
        lease_ms=int((deadline - time.time()) * 1000),
        api="Worker.prepare_job_execution(queue.enqueue('os.getpid'))  (StartedJobRegistry.add via Job.heartbeat)")
# 4. Sorted sets of job ids with times near now that are no leases.
later = queue.enqueue_in(timedelta(minutes=10), "os.getpid")
done = queue.enqueue("os.getpid")
if not worker.perform_job(done, queue):
    fx.fail("RQ could not run %s" % done.id)
for key, why in ((scheduled_reg.key, "RQ ScheduledJobRegistry: job ids scored with their run-at time (Unix s), "
                                     "no lease"),
                 (finished_reg.key, "RQ FinishedJobRegistry: job ids scored with when their result expires "
                                    "(now + result_ttl), no lease")):
    if not r.exists(key):
        fx.fail("RQ wrote no %s" % key)
    fx.not_lock(key, why, type="zset", strict=True)
fx.not_lock("rq:queues", "RQ set of queue keys (shared)", type="set")

# The scheduler's own renewal, on the same period RQScheduler.work() uses.
def renew():
    while not fx.stopping():
        fx._stop.wait(INTERVAL)
        if fx.stopping():
            break
        try:
            scheduler.heartbeat()
        except Exception as e:  # pragma: no cover
            fx.fail("heartbeat failed: %s" % e)


threading.Thread(target=renew, daemon=True).start()
fx.ready_and_hold()

scheduler.release_locks()
r.delete(queue.registry_cleaning_key)  # normally it just expires after 899 s
worker.register_death()
r.delete(worker.key)
job.delete()
for j in (running, later, done):
    j.delete()
r.delete(started_reg.key, finished_reg.key, scheduled_reg.key)
queue.delete(delete_jobs=True)
sys.exit(0)
