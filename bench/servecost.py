"""bench/run servecost: what `lockscope-cli serve` costs the server it watches, beside redis_exporter on the same
server. N locks (a third plain strings, a third Redisson hashes, a third strings named lock:job:*), keyspace
notifications off; per contender: commands/s the server executed at rest and while /metrics is scraped back
to back (INFO commandstats deltas; both windows fall between serve's first scan and its next, 30 s later, the benchmark's own INFO calls left out), commands per scrape, scrape time,
locks read per second (TYPE calls: one per lock reading; serve only) and the exporter's RSS. See
docs/benchmarks.md#serve-polling-cost."""
import os, re, shutil, socket, statistics, subprocess, time, urllib.request, uuid


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fill(r, n):
    p = r.pipeline(transaction=False)
    for i in range(n):
        kind = i % 3
        if kind == 0:
            p.set("orders:%d:lock" % i, uuid.uuid4().hex, px=3600000)
        elif kind == 1:
            key = "inventory:%d:lock" % i
            p.hset(key, "%s:1" % uuid.uuid4(), 1)
            p.pexpire(key, 3600000)
        else:
            p.set("lock:job:%d" % i, uuid.uuid4().hex, px=3600000)
        if i % 1000 == 999:
            p.execute()
    p.execute()


class Stats:
    def __init__(self, r):
        self.r, self.asked = r, 0

    def calls(self):
        self.asked += 1
        s = self.r.info("commandstats")
        return {k: v["calls"] for k, v in s.items()}, self.asked

    def window(self, seconds, during=None):
        a, asked0 = self.calls()
        t0 = time.monotonic()
        extra = []
        while time.monotonic() - t0 < seconds:
            if during:
                extra.append(during())
            else:
                time.sleep(0.1)
        b, asked1 = self.calls()
        dt = time.monotonic() - t0
        delta = {k: b[k] - a.get(k, 0) for k in b}
        total = sum(delta.values()) - (asked1 - asked0)
        return {"commands_per_s": total / dt, "type_per_s": delta.get("cmdstat_type", 0) / dt, "seconds": dt}, extra


def rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return None


def scrape(url):
    t = time.monotonic()
    with urllib.request.urlopen(url, timeout=60) as reply:
        size = len(reply.read())
    return time.monotonic() - t, size


def wait_http(url, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            scrape(url)
            return True
        except OSError:
            time.sleep(0.2)
    return False


def contender(stats, cmd, url, warmup, seconds):
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if not wait_http(url):
            raise SystemExit("bench/run servecost: %s did not serve %s" % (cmd[0], url))
        time.sleep(warmup)  # serve's first scan and its budget's first windows
        rest, _ = stats.window(seconds)
        busy, scrapes = stats.window(seconds, lambda: scrape(url))
        times = [t for t, _ in scrapes]
        out = {
            "at_rest_commands_per_s": round(rest["commands_per_s"], 1),
            "scraped_commands_per_s": round(busy["commands_per_s"], 1),
            "scrapes": len(scrapes),
            "commands_per_scrape": round(max(0.0, busy["commands_per_s"] - rest["commands_per_s"]) * busy["seconds"]
                                         / max(1, len(scrapes)), 1),
            "scrape_s_median": round(statistics.median(times), 3) if times else None,
            "scrape_bytes": scrapes[-1][1] if scrapes else None,
            "locks_read_per_s_at_rest": round(rest["type_per_s"], 1),
            "locks_read_per_s_scraped": round(busy["type_per_s"], 1),
            "rss_mb": round(rss_mb(proc.pid), 1),
        }
        return out
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def run(cli, port, locks, seconds=9, warmup=7, redis_exporter=None, log=print):
    import redis
    r = redis.Redis(port=port)
    r.flushall()
    r.config_set("notify-keyspace-events", "")
    fill(r, locks)
    stats = Stats(r)
    results = {"locks": locks, "notifications": "off", "seconds_per_window": seconds}
    listen = free_port()
    url = "http://127.0.0.1:%d/metrics" % listen
    serve = [cli, "serve", "--port", str(port), "--listen", "127.0.0.1:%d" % listen]
    contenders = {
        "serve (default: cap 500, 500 series)": serve,
        "serve --max-lock-series %d (cap 500)" % locks: serve + ["--max-lock-series", str(locks)],
        "serve --max-commands-per-second 0 --max-lock-series %d" % locks:
            serve + ["--max-commands-per-second", "0", "--max-lock-series", str(locks)],
    }
    exporter = redis_exporter or shutil.which("redis_exporter") or shutil.which("prometheus-redis-exporter")
    if exporter:
        base = [exporter, "-redis.addr", "redis://127.0.0.1:%d" % port, "-web.listen-address", "127.0.0.1:%d" % listen]
        contenders["redis_exporter"] = base
        contenders["redis_exporter -check-keys '*lock*'"] = base + ["-check-keys", "*lock*"]
    else:
        results["redis_exporter"] = "skipped: not found (REDIS_EXPORTER, PATH)"
    for name, cmd in contenders.items():
        log("  servecost: %s" % name)
        results[name] = contender(stats, cmd, url, warmup if name.startswith("serve") else 2, seconds)
    return results
