#!/usr/bin/env python3
"""redis-py's Lock as its users run it, for bench/run: N threads, each with its own client.
uncontended: thread i locks and unlocks its own key.  contended: all share one key, each holds it cs_ms.
Prints one JSON object: cycles_per_s, hand-off p50/p99 (us), Jain fairness."""
import argparse, json, threading, time

import redis

p = argparse.ArgumentParser()
p.add_argument("mode", choices=["uncontended", "contended"])
p.add_argument("--port", type=int, required=True)
p.add_argument("--workers", type=int, default=8)
p.add_argument("--seconds", type=float, default=3)
p.add_argument("--cs-ms", type=float, default=1)
a = p.parse_args()

stop = time.monotonic() + a.seconds
counts = [0] * a.workers
events = []  # (acquired_ns, released_ns, worker) for hand-off
events_lock = threading.Lock()


def work(i):
    r = redis.Redis(host="127.0.0.1", port=a.port)
    name = "peer:redis-py:%d" % i if a.mode == "uncontended" else "peer:redis-py:shared"
    while time.monotonic() < stop:
        lock = r.lock(name, timeout=10)  # defaults otherwise: blocking, polling every 0.1 s
        if not lock.acquire(blocking=True, blocking_timeout=30):
            continue
        got = time.monotonic_ns()
        if a.mode == "contended":
            time.sleep(a.cs_ms / 1000.0)
        released = time.monotonic_ns()
        lock.release()
        counts[i] += 1
        if a.mode == "contended":
            with events_lock:
                events.append((got, released, i))


threads = [threading.Thread(target=work, args=(i,)) for i in range(a.workers)]
start = time.monotonic()
for t in threads:
    t.start()
for t in threads:
    t.join()
elapsed = time.monotonic() - start

handoffs = []
events.sort()
for prev, cur in zip(events, events[1:]):
    if cur[2] != prev[2]:
        handoffs.append((cur[0] - prev[1]) / 1000.0)
handoffs.sort()


def pct(p):
    return handoffs[min(len(handoffs) - 1, max(0, int(-(-p * len(handoffs) // 100)) - 1))] if handoffs else 0


s, sq = sum(counts), sum(c * c for c in counts)
print(json.dumps({"cycles_per_s": s / elapsed, "handoff_p50_us": pct(50), "handoff_p99_us": pct(99),
                  "handoffs": len(handoffs), "fairness_jain": (s * s / (len(counts) * sq)) if sq else 0}))
