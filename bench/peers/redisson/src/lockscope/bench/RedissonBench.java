// Real Redisson as bench/run's peer: N threads of one Redisson client (its defaults, as applications run it)
// lock and unlock RLock or RFairLock, timed as lockscope-bench times LockScope's redisson-reentrant.
//   uncontended --port P [--workers 8] [--seconds 3] [--warmup-seconds 5]        each thread its own lock
//   contended   --port P [--lock reentrant|fair] [--cs-ms 1] [--think-ms 1] ...  one lock for every thread
// The same loop runs --warmup-seconds first, unmeasured, so that the JIT has compiled Redisson's hot paths.
// Then it prints {"phase":"measure"}, measures --seconds, prints {"phase":"done"} (bench/run reads the
// server's CPU at both lines), and one JSON object: cycles_per_s and, contended, the hand-off p50/p99 in µs
// counted as LockScope's report counts them (RunMetrics): from a release's return to the return of another
// thread's lock() that was called before that release returned.
package lockscope.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

public final class RedissonBench {
    private static final class Event {
        final long ns; // when it happened (System.nanoTime)
        final long startNs; // acquisitions: when lock() was called
        final int worker;
        final boolean release;

        Event(long ns, long startNs, int worker, boolean release) {
            this.ns = ns;
            this.startNs = startNs;
            this.worker = worker;
            this.release = release;
        }
    }

    private static String option(String[] args, String name, String otherwise) {
        for (int i = 0; i + 1 < args.length; ++i) {
            if (args[i].equals("--" + name)) {
                return args[i + 1];
            }
        }
        return otherwise;
    }

    private static void pause(double ms) {
        if (ms > 0) {
            LockSupport.parkNanos((long) (ms * 1e6));
        }
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "";
        if (!mode.equals("uncontended") && !mode.equals("contended")) {
            System.err.println("usage: uncontended|contended --port P [--workers N] [--seconds S] ...");
            System.exit(2);
        }
        boolean contended = mode.equals("contended");
        int port = Integer.parseInt(option(args, "port", "6379"));
        int workers = Integer.parseInt(option(args, "workers", "8"));
        double seconds = Double.parseDouble(option(args, "seconds", "3"));
        double warmup = Double.parseDouble(option(args, "warmup-seconds", "5"));
        double csMs = Double.parseDouble(option(args, "cs-ms", contended ? "1" : "0"));
        double thinkMs = Double.parseDouble(option(args, "think-ms", contended ? "1" : "0"));
        boolean fair = option(args, "lock", "reentrant").equals("fair");

        Config config = new Config();
        config.useSingleServer().setAddress("redis://127.0.0.1:" + port);
        RedissonClient redisson = Redisson.create(config);

        AtomicBoolean stop = new AtomicBoolean();
        long[] window = new long[2]; // measured window, nanoTime; set before the workers look at it
        window[0] = Long.MAX_VALUE;
        window[1] = Long.MAX_VALUE;
        long[] cycles = new long[workers];
        List<List<Event>> events = new ArrayList<>();
        Thread[] threads = new Thread[workers];
        for (int w = 0; w < workers; ++w) {
            List<Event> mine = new ArrayList<>();
            events.add(mine);
            final int id = w;
            String name = contended ? "peer:redisson:shared" : "peer:redisson:" + w;
            RLock lock = fair ? redisson.getFairLock(name) : redisson.getLock(name);
            threads[w] = new Thread(() -> {
                while (!stop.get()) {
                    long startNs = System.nanoTime();
                    lock.lock(); // Redisson's watchdog lease, as lockscope-bench's redisson-reentrant
                    long gotNs = System.nanoTime();
                    pause(csMs);
                    lock.unlock();
                    long releasedNs = System.nanoTime();
                    synchronized (window) {
                        if (startNs >= window[0] && releasedNs <= window[1]) {
                            ++cycles[id];
                            if (contended) {
                                mine.add(new Event(gotNs, startNs, id, false));
                                mine.add(new Event(releasedNs, 0, id, true));
                            }
                        }
                    }
                    pause(thinkMs);
                }
            }, "bench-" + w);
            threads[w].start();
        }
        Thread.sleep((long) (warmup * 1000));
        synchronized (window) {
            window[0] = System.nanoTime();
        }
        System.out.println("{\"phase\":\"measure\"}");
        System.out.flush();
        Thread.sleep((long) (seconds * 1000));
        long endNs = System.nanoTime();
        synchronized (window) {
            window[1] = endNs;
        }
        System.out.println("{\"phase\":\"done\"}");
        System.out.flush();
        stop.set(true);
        for (Thread t : threads) {
            t.join(30000);
        }

        double elapsed = (endNs - window[0]) / 1e9;
        long total = Arrays.stream(cycles).sum();
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT,
                                 "{\"mode\":\"%s\",\"lock\":\"%s\",\"workers\":%d,\"seconds\":%.3f,"
                                     + "\"cycles_per_s\":%.1f,\"fairness_jain\":%.4f",
                                 mode, fair ? "fair" : "reentrant", workers, elapsed, total / elapsed,
                                 jain(cycles)));
        if (contended) {
            List<Event> all = new ArrayList<>();
            events.forEach(all::addAll);
            all.sort((x, y) -> Long.compare(x.ns, y.ns));
            List<Long> handoffs = new ArrayList<>();
            Event last = null;
            for (Event e : all) {
                if (e.release) {
                    last = e;
                } else {
                    if (last != null && last.worker != e.worker && e.startNs <= last.ns) {
                        handoffs.add(e.ns - last.ns);
                    }
                    last = null; // as RunMetrics: a release is handed off at most once
                }
            }
            handoffs.sort(Long::compare);
            out.append(String.format(Locale.ROOT,
                                     ",\"handoffs\":%d,\"handoff_p50_us\":%.1f,\"handoff_p99_us\":%.1f",
                                     handoffs.size(), percentile(handoffs, 0.5), percentile(handoffs, 0.99)));
        }
        out.append(String.format(Locale.ROOT, ",\"redisson_version\":\"%s\"}",
                                 Redisson.class.getPackage().getImplementationVersion()));
        System.out.println(out);
        System.out.flush();
        Runtime.getRuntime().halt(0); // Redisson's shutdown takes seconds; nothing is left to release
    }

    private static double percentile(List<Long> sortedNs, double p) {
        if (sortedNs.isEmpty()) {
            return 0;
        }
        return sortedNs.get((int) (p * (sortedNs.size() - 1))) / 1000.0;
    }

    private static double jain(long[] counts) {
        double sum = 0;
        double squares = 0;
        for (long c : counts) {
            sum += c;
            squares += (double) c * c;
        }
        return squares > 0 ? sum * sum / (counts.length * squares) : 0;
    }
}
