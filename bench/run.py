#!/usr/bin/env python3
"""bench/run's driver: every benchmark side by side with its peer or ceiling, on one private redis-server,
contenders interleaved round by round (A B C A B C ...), medians and ratios. See docs/benchmarks.md."""
import argparse, json, os, re, resource, shutil, statistics, subprocess, sys, tempfile, time

# A fleet is thousands of connections: raise the soft open-files limit to the hard one before anything
# starts, so the sandbox redis-server (which sizes maxclients by it) and the clients inherit it.
_soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if _soft < _hard:
    resource.setrlimit(resource.RLIMIT_NOFILE, (_hard, _hard))

p = argparse.ArgumentParser()
p.add_argument("--root", required=True)
p.add_argument("--build", required=True)
p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
p.add_argument("--rounds", type=int, default=3)
p.add_argument("--seconds", type=float, default=3)
p.add_argument("--scan-keys", type=int, default=1000000, help="keys in the scan benchmark (a tenth are locks)")
p.add_argument("--fleet-pairs", type=int, default=4, help="20 s runs with and without the history, for the fleet's recording overhead")
p.add_argument("--jvm-warmup", type=float, default=10, help="seconds the Redisson peer runs its loop before it is measured (JIT)")
p.add_argument("--explore-seeds", type=int, default=5, help="seeds per flaw in the explore benchmark (medians over them)")
p.add_argument("--explore-budget", type=float, default=60, help="seconds the random baseline may search per flaw and seed")
p.add_argument("--servecost-locks", type=int, default=3000, help="locks in the serve cost benchmark")
p.add_argument("--redis-exporter", default=os.environ.get("REDIS_EXPORTER"), help="redis_exporter binary for servecost")
p.add_argument("names", nargs="*")
a = p.parse_args()

ALL = ["uncontended", "contended", "recording", "hotpath", "scan", "paint", "memory", "fleet", "redisson", "explore",
       "servecost"]
names = a.names or ALL
unknown = [n for n in names if n not in ALL]
if unknown:
    sys.exit("bench/run: unknown benchmark %s; choose from %s" % (", ".join(unknown), " ".join(ALL)))

CLI = os.path.join(a.build, "src/cli/lockscope-cli")
BENCH = os.path.join(a.build, "bench/lockbench/lockscope-bench")
CEILING = os.path.join(a.build, "bench/handoffceiling/lockscope-handoff-ceiling")
PEERS = os.path.join(a.root, "bench/peers")
NODE_PATH = os.path.join(a.root, "bench/.peers/node_modules")
REDISSON_BENCH = os.path.join(a.root, "bench/.peers/redisson/target/lockscope-redisson-bench.jar")
# redis-py comes from Debian (python3-redis): use Debian's interpreter even when another python3 is first on PATH.
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def run_json(cmd, env=None, timeout=600, ok_codes=(0,)):
    """Runs a command that prints one JSON line; returns (object, peak RSS in KiB).
    ok_codes: exit codes that still carry figures (a benchmark exits non-zero when it misses its target)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise SystemExit("bench/run: %s took longer than %d s" % (cmd[0], timeout))
    if proc.returncode not in ok_codes:
        raise SystemExit("bench/run: %s failed (%d): %s" % (" ".join(cmd), proc.returncode, err.decode()[-2000:]))
    lines = [l for l in out.decode().splitlines() if l.strip().startswith("{")]
    return json.loads(lines[-1]), None


class Sandbox:
    """One private redis-server for a whole benchmark: `lockscope-cli sandbox` prints where it listens."""

    def __enter__(self):
        self.proc = subprocess.Popen([CLI, "sandbox"], stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        m = re.search(r"127\.0\.0\.1:(\d+)", line)
        if not m:
            raise SystemExit("bench/run: the sandbox did not start: " + line)
        self.port = int(m.group(1))
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(timeout=10)


def median(values):
    return statistics.median(values) if values else 0.0


def interleave(contenders, rounds):
    """contenders: {name: function returning a dict}. Runs A B C A B C ... and returns {name: [dicts]}."""
    results = {name: [] for name in contenders}
    for r in range(rounds):
        for name, fn in contenders.items():
            log("  round %d/%d: %s" % (r + 1, rounds, name))
            results[name].append(fn())
    return results


def med(results, name, key):
    return median([x[key] for x in results[name] if key in x])


def ratio(x, y):
    return round(x / y, 3) if y else None


def redis_benchmark_cycles(port, workers, seconds):
    """The server's ceiling for the same two commands (SET NX PX, then the compare-and-delete EVAL) at the
    same concurrency: one cycle costs one of each, so cycles/s = 1 / (1/set_rps + 1/eval_rps)."""
    n = int(max(20000, 60000 * seconds))
    script = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
    rates = []
    for cmd in (["SET", "bench:ceiling:__rand_int__", "token", "NX", "PX", "10000"],
                ["EVAL", script, "1", "bench:ceiling:__rand_int__", "token"]):
        out = subprocess.run(["redis-benchmark", "-p", str(port), "-c", str(workers), "-n", str(n), "-r", "100000",
                              "-q", "--csv"] + cmd, capture_output=True, text=True, check=True).stdout
        # "\"SET ...\",\"123456.78\",..." : the second field is requests per second
        row = [l for l in out.splitlines() if l and not l.startswith('"test"')][-1]
        rates.append(float(row.split('","')[1].strip('"')))
    return {"cycles_per_s": 1.0 / (1.0 / rates[0] + 1.0 / rates[1]), "set_rps": rates[0], "eval_rps": rates[1]}


def peer_env():
    env = dict(os.environ)
    env["NODE_PATH"] = NODE_PATH
    return env


def bench_uncontended(port):
    w, s = 8, a.seconds
    contenders = {
        "lockscope_set_nx_px_lua": lambda: run_json([BENCH, "uncontended", "--port", str(port), "--algorithm", "set-nx-px-lua",
                                                     "--workers", str(w), "--seconds", str(s)])[0],
        "lockscope_redisson_reentrant": lambda: run_json([BENCH, "uncontended", "--port", str(port), "--algorithm",
                                                          "redisson-reentrant", "--workers", str(w), "--seconds", str(s)])[0],
        "lockscope_set_nx_px_lua_events": lambda: run_json([BENCH, "uncontended", "--port", str(port), "--algorithm",
                                                            "set-nx-px-lua", "--workers", str(w), "--seconds", str(s),
                                                            "--engine", "events"])[0],
        "redis_py": lambda: run_json([PYTHON, os.path.join(PEERS, "redis_py_lock.py"), "uncontended", "--port", str(port),
                                      "--workers", str(w), "--seconds", str(s)])[0],
        "node_redlock": lambda: run_json(["node", os.path.join(PEERS, "node_redlock.js"), "uncontended", "--port", str(port),
                                          "--workers", str(w), "--seconds", str(s)], env=peer_env())[0],
        "ceiling_redis_benchmark": lambda: redis_benchmark_cycles(port, w, s),
    }
    r = interleave(contenders, a.rounds)
    out = {name + "_cycles_per_s": round(med(r, name, "cycles_per_s"), 1) for name in contenders}
    lua = out["lockscope_set_nx_px_lua_cycles_per_s"]
    out["ratio_vs_node_redlock"] = ratio(lua, out["node_redlock_cycles_per_s"])
    out["ratio_vs_redis_py"] = ratio(lua, out["redis_py_cycles_per_s"])
    out["ratio_vs_ceiling"] = ratio(lua, out["ceiling_redis_benchmark_cycles_per_s"])
    events = out["lockscope_set_nx_px_lua_events_cycles_per_s"]
    out["events_ratio_vs_threads"] = ratio(events, lua)
    out["events_ratio_vs_node_redlock"] = ratio(events, out["node_redlock_cycles_per_s"])
    out["events_ratio_vs_ceiling"] = ratio(events, out["ceiling_redis_benchmark_cycles_per_s"])
    out["targets"] = {"ratio_vs_node_redlock >= 1.2": (out["ratio_vs_node_redlock"] or 0) >= 1.2,
                      "ratio_vs_redis_py >= 8": (out["ratio_vs_redis_py"] or 0) >= 8,
                      "ratio_vs_ceiling >= 0.8": (out["ratio_vs_ceiling"] or 0) >= 0.8,
                      # Issue 22's targets for the event engine.
                      "events_ratio_vs_node_redlock >= 1.05": (out["events_ratio_vs_node_redlock"] or 0) >= 1.05,
                      "events_ratio_vs_ceiling >= 0.97": (out["events_ratio_vs_ceiling"] or 0) >= 0.97}
    return out


ALGORITHMS = ["setnx-expire", "set-nx-px-del", "set-nx-px-get-del", "set-nx-px-lua", "set-nx-px-lua-watchdog",
              "redisson-reentrant", "redisson-fair", "redisson-rw", "fenced", "redlock"]


def bench_contended(port):
    w, s = 8, a.seconds
    contenders = {"ping": lambda: run_json([BENCH, "ping", "--port", str(port), "--count", "3000"])[0]}
    for alg in ALGORITHMS:
        contenders["lockscope_" + alg] = (lambda alg=alg: run_json(
            [BENCH, "contended", "--port", str(port), "--algorithm", alg, "--workers", str(w), "--seconds", str(s),
             "--cs-ms", "1"])[0])
    # Issue 22: the hand-off on the event engine. Without a pause between cycles the unfair reentrant lock
    # mostly goes back to the worker that released it (on one loop it always does: no hand-off to time), so
    # the hand-off is timed with each worker thinking 1 ms after its release; both engines, and the event
    # engine without the pause as well.
    for alg in ("redisson-reentrant", "redisson-fair"):
        for engine, think in (("events", "0"), ("events", "1"), ("threads", "1")):
            name = "lockscope_%s_%s%s" % (alg, engine, "_think1" if think == "1" else "")
            contenders[name] = (lambda alg=alg, engine=engine, think=think: run_json(
                [BENCH, "contended", "--port", str(port), "--algorithm", alg, "--workers", str(w), "--seconds", str(s),
                 "--cs-ms", "1", "--think-ms", think, "--engine", engine])[0])
    # What the hand-off can be on this machine: two raw-socket threads doing only the hand-off's commands
    # with the same Lua, each blocked on its own subscriber socket, and again polling instead of sleeping;
    # and the fair lock's, with 8 threads so that its queue is as long as the 8 workers' (its scripts walk it).
    for variant, extra in (("", []), ("_spin", ["--spin"]), ("_fair", ["--fair", "--threads", str(w)])):
        contenders["ceiling_handoff" + variant] = (lambda extra=extra: run_json(
            [CEILING, "--port", str(port), "--lua", os.path.join(a.root, "resources/lua"), "--seconds", str(s),
             "--cs-ms", "1", "--think-ms", "1"] + extra)[0])
    contenders["redis_py"] = lambda: run_json([PYTHON, os.path.join(PEERS, "redis_py_lock.py"), "contended", "--port",
                                               str(port), "--workers", str(w), "--seconds", str(s), "--cs-ms", "1"])[0]
    contenders["node_redlock"] = lambda: run_json(["node", os.path.join(PEERS, "node_redlock.js"), "contended", "--port",
                                                   str(port), "--workers", str(w), "--seconds", str(s), "--cs-ms", "1"],
                                                  env=peer_env())[0]
    r = interleave(contenders, a.rounds)
    out = {"ping_p50_us": med(r, "ping", "ping_p50_us")}
    for name in contenders:
        if name == "ping":
            continue
        keys = ("handoff_p50_us", "handoff_p99_us", "cycles_per_s", "handoffs") + (
            () if name.startswith("ceiling") else ("fairness_jain",))
        out[name] = {k: round(med(r, name, k), 3) for k in keys}
    for variant in ("", "_spin", "_fair"):
        out["ceiling_handoff%s_over_ping" % variant] = ratio(out["ceiling_handoff" + variant]["handoff_p50_us"],
                                                             out["ping_p50_us"])
    for variant in ("", "_spin"):
        out["events_think1_reentrant_over_ceiling%s" % variant] = ratio(
            out["lockscope_redisson-reentrant_events_think1"]["handoff_p50_us"],
            out["ceiling_handoff" + variant]["handoff_p50_us"])
    out["events_think1_fair_over_ceiling_fair"] = ratio(out["lockscope_redisson-fair_events_think1"]["handoff_p50_us"],
                                                        out["ceiling_handoff_fair"]["handoff_p50_us"])
    rr = out["lockscope_redisson-reentrant"]["handoff_p50_us"]
    out["redisson_handoff_p50_over_ping"] = ratio(rr, out["ping_p50_us"])
    for alg in ("redisson-reentrant", "redisson-fair"):
        for variant in ("events", "events_think1", "threads_think1"):
            out["%s_%s_handoff_p50_over_ping" % (alg, variant)] = ratio(
                out["lockscope_%s_%s" % (alg, variant)]["handoff_p50_us"], out["ping_p50_us"])

    def handoff_met(alg):  # a p50 of no hand-offs at all is not a hand-off time
        return (out["lockscope_%s_events_think1" % alg]["handoffs"] >= 100
                and (out["%s_events_think1_handoff_p50_over_ping" % alg] or 99) <= 3)
    out["targets"] = {"redisson_handoff_p50_over_ping <= 4": (out["redisson_handoff_p50_over_ping"] or 99) <= 4,
                      "redisson_fair_jain >= 0.95": out["lockscope_redisson-fair"]["fairness_jain"] >= 0.95,
                      "events, think 1 ms: reentrant hand-off p50 <= 3x PING": handoff_met("redisson-reentrant"),
                      "events, think 1 ms: fair hand-off p50 <= 3x PING": handoff_met("redisson-fair")}
    return out


def bench_recording(port):
    w, s = 8, a.seconds
    base = [BENCH, "uncontended", "--port", str(port), "--algorithm", "set-nx-px-lua", "--workers", str(w), "--seconds", str(s)]
    r = interleave({"history_on": lambda: run_json(base)[0], "history_off": lambda: run_json(base + ["--no-history"])[0]},
                   a.rounds)
    on, off = med(r, "history_on", "cycles_per_s"), med(r, "history_off", "cycles_per_s")
    overhead = (off - on) / off if off else None
    return {"history_on_cycles_per_s": round(on, 1), "history_off_cycles_per_s": round(off, 1),
            "overhead": round(overhead, 4) if overhead is not None else None,
            "targets": {"overhead <= 0.10": overhead is not None and overhead <= 0.10}}


def bench_fleet(port):
    # The fleet preset (5,000 workers in 50 processes, 20 Redisson locks, 60 s) on the event engine, and the
    # thread engine at its own limit (1,024 workers: 10 processes x 100) next to the event engine at the same
    # size: one one-minute round each.
    def fleet(*extra):
        return lambda: run_json([BENCH, "fleet", "--port", str(port)] + list(extra), timeout=900)[0]
    contenders = {"events_5000": fleet("--engine", "events"),
                  "events_1000": fleet("--engine", "events", "--processes", "10"),
                  "threads_1000": fleet("--engine", "threads", "--processes", "10")}
    r = interleave(contenders, 1)
    out = {name: r[name][0] for name in contenders}
    # The recording overhead, from pairs: one fleet run's throughput differs from the next by up to 15 % with
    # the same settings (the machine, not the history: see docs/benchmarks.md), more than the 5 % to be
    # resolved. So 20 s runs with and without the history in A B B A order (a drift over time cancels), and
    # the mean of the pairs' overheads with its 95 % interval (Student's t).
    on_run, off_run = fleet("--engine", "events", "--seconds", "20"), fleet("--engine", "events", "--seconds", "20",
                                                                             "--no-history")
    pairs = []
    for i in range(a.fleet_pairs):
        log("  recording overhead, pair %d/%d" % (i + 1, a.fleet_pairs))
        if i % 2 == 0:
            on, off = on_run(), off_run()
        else:
            off, on = off_run(), on_run()
        # Commands per cycle, counted by the workers in both runs, say whether a cycle was the same work in
        # both (a herd that grew with the history would make the throughputs compare unlike things).
        pairs.append({"history_on_cycles_per_s": round(on["cycles_per_s"], 1),
                      "history_off_cycles_per_s": round(off["cycles_per_s"], 1),
                      "history_on_commands_per_cycle": round(on["commands_per_cycle"], 2),
                      "history_off_commands_per_cycle": round(off["commands_per_cycle"], 2),
                      "overhead": round(1 - on["cycles_per_s"] / off["cycles_per_s"], 4)})
    overheads = [p["overhead"] for p in pairs]
    mean = statistics.mean(overheads)
    half = None
    if len(overheads) > 1:
        t95 = {2: 12.706, 3: 4.303, 4: 3.182, 5: 2.776, 6: 2.571, 7: 2.447, 8: 2.365}.get(len(overheads), 2.0)
        half = t95 * statistics.stdev(overheads) / len(overheads) ** 0.5
    out["recording_pairs"] = pairs
    out["recording_overhead"] = round(mean, 4)
    out["recording_overhead_95"] = [round(mean - half, 4), round(mean + half, 4)] if half is not None else None
    out["thread_engine_limit_workers"] = 1024
    out["targets"] = {"5,000 workers held for the run": out["events_5000"]["workers"] == 5000,
                      "history_dropped == 0": out["events_5000"]["history_dropped"] == 0,
                      "recording_overhead (mean of the pairs) <= 0.05": mean <= 0.05}
    return out


def server_cpu_s(port):
    """The sandbox redis-server's CPU time so far, user + system (INFO CPU), in seconds."""
    import redis  # Debian's python3-redis, which bench/run installs
    info = redis.Redis(host="127.0.0.1", port=port).info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def with_server_cpu(port, fn, seconds):
    """Runs fn (a contender that measures `seconds` of load) and adds the server's CPU share over that time:
    its CPU seconds around the run, over the run's measured seconds (its setup costs the server nothing
    worth counting: a few commands)."""
    before = server_cpu_s(port)
    result = fn()
    result["server_cpu_share"] = round((server_cpu_s(port) - before) / result.get("seconds", seconds), 3)
    return result


def run_redisson_peer(port, *args):
    """The JVM peer (bench/peers/redisson): its warm-up is not measured; the server's CPU is read when it says
    {"phase":"measure"} and {"phase":"done"}, so its share is over the measured window alone."""
    cmd = ["java", "-jar", REDISSON_BENCH] + list(args) + ["--port", str(port), "--warmup-seconds", str(a.jvm_warmup)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    marks, result = {}, None
    for line in proc.stdout:
        if not line.strip().startswith("{"):
            continue
        message = json.loads(line)
        if message.get("phase") in ("measure", "done"):
            marks[message["phase"]] = (server_cpu_s(port), time.monotonic())
        else:
            result = message
    err = proc.stderr.read()
    if proc.wait(timeout=120) != 0 or result is None or len(marks) != 2:
        raise SystemExit("bench/run: the Redisson peer failed (%s): %s" % (proc.returncode, err[-2000:]))
    (cpu0, t0), (cpu1, t1) = marks["measure"], marks["done"]
    result["server_cpu_share"] = round((cpu1 - cpu0) / (t1 - t0), 3)
    return result


def bench_redisson(port):
    """Issue 29: real Redisson (RLock, RFairLock, one JVM with 8 threads) against LockScope's Redisson on the
    event engine, and the raw-socket ceiling of the same hand-off, in one run on one server."""
    w, s = 8, a.seconds
    bench = lambda *args: lambda: with_server_cpu(port, lambda: run_json([BENCH] + list(args) + [
        "--port", str(port), "--workers", str(w), "--seconds", str(s)])[0], s)
    ceiling = lambda *extra: lambda: with_server_cpu(port, lambda: run_json(
        [CEILING, "--port", str(port), "--lua", os.path.join(a.root, "resources/lua"), "--seconds", str(s),
         "--cs-ms", "1", "--think-ms", "1"] + list(extra))[0], s)
    peer = lambda *args: lambda: run_redisson_peer(port, *(list(args) + ["--workers", str(w), "--seconds", str(s)]))
    contenders = {
        # Uncontended: 8 threads, each its own lock (8 locks), lock and unlock as fast as they go.
        "lockscope_events_uncontended": bench("uncontended", "--algorithm", "redisson-reentrant", "--engine", "events"),
        "redisson_uncontended": peer("uncontended"),
        # Contended: 8 threads, one lock, 1 ms inside and 1 ms after each release (so a release is handed off).
        "lockscope_events_reentrant": bench("contended", "--algorithm", "redisson-reentrant", "--engine", "events",
                                            "--cs-ms", "1", "--think-ms", "1"),
        "lockscope_events_fair": bench("contended", "--algorithm", "redisson-fair", "--engine", "events",
                                       "--cs-ms", "1", "--think-ms", "1"),
        "redisson_reentrant": peer("contended", "--lock", "reentrant", "--cs-ms", "1", "--think-ms", "1"),
        "redisson_fair": peer("contended", "--lock", "fair", "--cs-ms", "1", "--think-ms", "1"),
        "ceiling_handoff": ceiling(),
        "ceiling_handoff_fair": ceiling("--fair", "--threads", str(w)),
    }
    r = interleave(contenders, a.rounds)
    out = {}
    for name in contenders:
        keys = ("cycles_per_s", "server_cpu_share") + (() if name.endswith("uncontended") else
                                                       ("handoff_p50_us", "handoff_p99_us", "handoffs"))
        out[name] = {k: round(med(r, name, k), 3) for k in keys}
    out["uncontended_events_over_redisson"] = ratio(out["lockscope_events_uncontended"]["cycles_per_s"],
                                                    out["redisson_uncontended"]["cycles_per_s"])
    for lock, ceil in (("reentrant", "ceiling_handoff"), ("fair", "ceiling_handoff_fair")):
        ours = out["lockscope_events_" + lock]["handoff_p50_us"]
        out["handoff_%s_over_redisson" % lock] = ratio(ours, out["redisson_" + lock]["handoff_p50_us"])
        out["handoff_%s_over_ceiling" % lock] = ratio(ours, out[ceil]["handoff_p50_us"])
    out["targets"] = {
        "uncontended: events >= 1.2x Redisson": (out["uncontended_events_over_redisson"] or 0) >= 1.2,
        "reentrant hand-off p50 <= Redisson's": (out["handoff_reentrant_over_redisson"] or 99) <= 1,
        "fair hand-off p50 <= Redisson's": (out["handoff_fair_over_redisson"] or 99) <= 1,
        "reentrant hand-off p50 <= 1.1x ceiling": (out["handoff_reentrant_over_ceiling"] or 99) <= 1.1,
        "fair hand-off p50 <= 1.1x ceiling (fair)": (out["handoff_fair_over_ceiling"] or 99) <= 1.1}
    return out


def callgrind_instructions(port, algorithm, cycles):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        res = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, BENCH, "hotpath", "--port",
                              str(port), "--algorithm", algorithm, "--cycles", str(cycles)], capture_output=True, text=True)
        m = re.search(r"Collected : (\d+)", res.stderr)
        if res.returncode != 0 or not m:
            raise SystemExit("bench/run: callgrind failed: " + res.stderr[-1500:])
        return int(m.group(1))


def bench_hotpath(port):
    if not shutil.which("valgrind"):
        return {"skipped": "valgrind is not installed"}
    out = {}
    for alg in ("set-nx-px-lua", "redisson-reentrant"):
        # The difference between two runs cancels start-up: what is left is the client-side cost of the cycles.
        small, large = callgrind_instructions(port, alg, 500), callgrind_instructions(port, alg, 2500)
        out[alg + "_instructions_per_cycle"] = round((large - small) / 2000)
    # Issue 22: at most half of what set-nx-px-lua cost when it was filed (18.4 k, docs/benchmarks.md).
    out["set-nx-px-lua_ratio_vs_issue_22_baseline"] = ratio(out["set-nx-px-lua_instructions_per_cycle"], 18400)
    out["targets"] = {"set-nx-px-lua <= 0.5x 18.4k": out["set-nx-px-lua_ratio_vs_issue_22_baseline"] <= 0.5}
    return out


# The seed flaws of issue 37: each catalog algorithm with the fault that breaks it, as `explore` is told.
EXPLORE_FLAWS = [
    ("setnx-expire crash", ["--algorithm", "setnx-expire", "--faults", "crash"]),
    ("set-nx-px-del pause", ["--algorithm", "set-nx-px-del", "--faults", "pause"]),
    ("set-nx-px-get-del delay", ["--algorithm", "set-nx-px-get-del", "--faults", "delay", "--properties", "foreign-release"]),
    ("set-nx-px-lua pause", ["--algorithm", "set-nx-px-lua", "--faults", "pause"]),
    ("set-nx-px-lua-watchdog pause", ["--algorithm", "set-nx-px-lua-watchdog", "--faults", "pause"]),
    ("redlock restart", ["--algorithm", "redlock", "--faults", "restart"]),
    ("set-nx-px-lua failover", ["--algorithm", "set-nx-px-lua", "--faults", "failover"]),
]


def explore(args, timeout):
    """One `lockscope-cli explore` run (its own sandbox servers); its JSON report and its wall time."""
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        t0 = time.monotonic()
        proc = subprocess.run([CLI, "explore", "--quiet", "--json", report] + args, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=timeout)
        wall = time.monotonic() - t0
        if proc.returncode not in (0, 3):
            raise SystemExit("bench/run: explore %s failed (%d): %s" % (" ".join(args), proc.returncode, proc.stderr.decode()[-2000:]))
        with open(report) as f:
            return json.load(f), wall


def bench_explore():
    """Per seed flaw and seed: the guided search to a shrunk, confirmed story, and plain random search (uniform
    fault times and lengths) to its first sighting, in the same run. Random search that finds nothing within its
    budget counts the schedules it tried: the ratio is then a lower bound (marked)."""
    out = {"seeds": a.explore_seeds, "random_budget_s": a.explore_budget, "flaws": {}}
    ratios, all_within_60 = [], True
    for flaw, args in EXPLORE_FLAWS:
        guided, rand = [], []
        for seed in range(1, a.explore_seeds + 1):
            g, g_wall = explore(args + ["--seed", str(seed), "--budget", "120"], 600)
            r, _ = explore(args + ["--seed", str(seed), "--random", "--first-sighting", "--budget", str(int(a.explore_budget))], 600)
            minimal = g.get("minimal") or {}
            guided.append({"found": g.get("found"), "first_schedules": (g.get("first_violation") or {}).get("schedules"),
                           "first_s": (g.get("first_violation") or {}).get("seconds"), "story_s": round(g_wall, 1),
                           "faults": len(minimal.get("faults") or []), "workers": minimal.get("workers"),
                           "reproduced": "%s/%s" % ((g.get("reproduced") or {}).get("violated"), (g.get("reproduced") or {}).get("runs"))})
            rand.append({"found": r.get("found"), "schedules": (r.get("first_violation") or {}).get("schedules") if r.get("found") else r.get("schedules_tried"),
                         "seconds": r.get("seconds")})
            log("bench/run: explore %s seed %d: guided %s, random %s" % (flaw, seed, guided[-1], rand[-1]))
        g_sched = median([x["first_schedules"] or 0 for x in guided])
        r_sched = median([x["schedules"] or 0 for x in rand])
        story_s = median([x["story_s"] for x in guided])
        lower_bound = sum(1 for x in rand if not x["found"]) * 2 >= len(rand)  # the median random run found nothing
        out["flaws"][flaw] = {
            "guided_found": "%d/%d" % (sum(1 for x in guided if x["found"]), len(guided)),
            "guided_schedules_to_first_median": g_sched,
            "guided_seconds_to_first_median": median([x["first_s"] or 0 for x in guided]),
            "guided_seconds_to_confirmed_story_median": story_s,
            "guided_max_faults": max(x["faults"] for x in guided), "guided_max_workers": max(x["workers"] or 0 for x in guided),
            "guided_reproduced": [x["reproduced"] for x in guided],
            "random_found": "%d/%d" % (sum(1 for x in rand if x["found"]), len(rand)),
            "random_schedules_to_first_median": r_sched,
            "ratio_random_over_guided": ("≥ " if lower_bound else "") + str(ratio(r_sched, max(g_sched, 1))),
        }
        ratios.append(ratio(r_sched, max(g_sched, 1)))
        all_within_60 = all_within_60 and story_s <= 60
    # Rates: a process fault (many schedules at once on one server) and a server fault (a pool of servers), each
    # where nothing is found, so the whole budget is spent searching.
    proc_r, _ = explore(["--algorithm", "set-nx-px-lua", "--faults", "crash", "--budget", "60"], 600)
    serv_r, _ = explore(["--algorithm", "set-nx-px-lua", "--faults", "restart", "--properties", "stuck-lock", "--budget", "60"], 600)
    for name, r in (("process_faults", proc_r), ("server_faults", serv_r)):
        out[name + "_schedules_per_min"] = round(r.get("schedules_tried", 0) * 60.0 / max(r.get("seconds", 1), 1e-9), 1)
        out[name + "_found"] = r.get("found")
    out["median_ratio_over_flaws"] = median(ratios)
    out["targets"] = {"random/guided >= 5x (median over flaws)": median(ratios) >= 5,
                      "every flaw to a confirmed story <= 60 s (median of seeds)": all_within_60,
                      "crash on set-nx-px-lua: >= 100 schedules in 60 s": proc_r.get("schedules_tried", 0) >= 100}
    return out


def optional_program(name, *relative):
    path = os.path.join(a.build, *relative)
    return path if os.path.exists(path) else None


def bench_external(name, relative, extra, ok_codes):
    """A benchmark program of ours that ends with one JSON line; a missed target still reports figures."""
    program = optional_program(name, *relative)
    if not program:
        return {"skipped": "%s was not built (%s)" % (name, "/".join(relative))}
    return run_json([program, "--json"] + extra, timeout=3600, ok_codes=ok_codes)[0]


scan_args = ["--keys", str(a.scan_keys), "--locks", str(a.scan_keys // 10), "--rounds", str(a.rounds)]
results = {}
for name in names:
    log("bench/run: %s" % name)
    t0 = time.monotonic()
    if name in ("uncontended", "contended", "recording", "hotpath", "fleet", "redisson"):
        with Sandbox() as sb:
            results[name] = {"uncontended": bench_uncontended, "contended": bench_contended,
                             "recording": bench_recording, "hotpath": bench_hotpath,
                             "fleet": bench_fleet, "redisson": bench_redisson}[name](sb.port)
    elif name == "explore":
        results[name] = bench_explore()
    elif name == "servecost":
        sys.path.insert(0, os.path.join(a.root, "bench"))
        import servecost
        with Sandbox() as sb:
            results[name] = servecost.run(CLI, sb.port, a.servecost_locks, redis_exporter=a.redis_exporter, log=log)
    elif name == "scan":
        results[name] = bench_external("scan benchmark", ("bench", "inspect", "bench_inspect"), scan_args, (0, 3))
    elif name == "paint":
        results[name] = bench_external("timeline paint benchmark", ("bench", "timeline", "lockscope-timeline-bench"), [], (0, 1))
    elif name == "memory":
        # Peak RSS of the scan (LockScanJob keeping every record, as the GUI table and the CLI do) and of the
        # GUI's timeline + event log holding 200 workers x 60 s: taken from those runs, or run them now.
        scan = results.get("scan") or bench_external("scan benchmark", ("bench", "inspect", "bench_inspect"),
                                                      scan_args[:4] + ["--rounds", "1", "--skip-pttl"], (0, 3))
        paint = results.get("paint") or bench_external("timeline paint benchmark",
                                                        ("bench", "timeline", "lockscope-timeline-bench"), ["--frames", "3"], (0, 1))
        results[name] = {"scan_peak_rss_mb": scan.get("peak_rss_mb_scan"),
                         "scan_gui_path_peak_rss_mb": scan.get("peak_rss_mb_gui_path"),
                         "timeline_peak_rss_mb": paint.get("peak_rss_mb"),
                         "timeline_data_mb": paint.get("rss_mb_timeline")}
    results[name]["wall_s"] = round(time.monotonic() - t0, 1)

results["machine"] = {"cpus": os.cpu_count(), "load_average_1m_at_end": round(os.getloadavg()[0], 2), "date": time.strftime("%Y-%m-%d"), "rounds": a.rounds, "seconds": a.seconds}
if a.json:
    print(json.dumps(results, indent=2))
else:
    for name, r in results.items():
        print("== %s" % name)
        for k, v in r.items():
            print("  %-45s %s" % (k, json.dumps(v)))
os.makedirs(os.path.join(a.root, "bench/results"), exist_ok=True)
with open(os.path.join(a.root, "bench/results/latest.json"), "w") as f:
    json.dump(results, f, indent=2)
