// LockScope client adapter for Jedis, locking the way the source articles do it with Jedis (seeds 000, 002,
// 003): SET key token NX PX lease with a random UUID token, tried again every 50 ms until the wait is over,
// and a release that deletes the key only when it still holds the token (a Lua compare-and-delete, run with
// jedis.eval). Jedis is a Redis client, not a lock library: this is the articles' recipe through its API,
// on one connection to servers[0] (the counter too). The recipe has no extend and no renewal; lease_ms 0 is
// a plain SET NX (the lock never expires, the articles' warning).
package lockscope.adapter;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;

public final class JedisAdapter implements Protocol.Handler {
    // Deletes the lock only if it is still ours: 1 deleted, 0 not ours (expired, or someone else's).
    private static final String RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then "
                                          + "return redis.call('del', KEYS[1]) else return 0 end";
    private static final long RETRY_MS = 50;

    private Jedis jedis;
    private final Map<String, String> tokens = new HashMap<>(); // lock -> the token this worker wrote

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("--version")) {
            System.out.println(Versions.of(Jedis.class, "redis.clients", "jedis"));
            return;
        }
        new Protocol().run(new JedisAdapter());
    }

    @Override
    public Map<String, Object> hello(List<Object> servers, Map<String, Object> options) {
        jedis = new Jedis(Protocol.host(servers, 0), Protocol.port(servers, 0), 5000);
        jedis.ping(); // connects now: an unreachable server fails the hello
        Map<String, Object> supports = new LinkedHashMap<>();
        supports.put("lease", true);
        supports.put("no_lease", true);
        supports.put("extend", false);
        supports.put("auto_renewal", false);
        supports.put("renewal_events", false);
        supports.put("reentrant", false); // a second SET NX by the holder fails like anyone's
        supports.put("fencing", false);
        supports.put("release_not_held", true); // the script answers 0 when the token is not there
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("library", "jedis");
        reply.put("version", Versions.of(Jedis.class, "redis.clients", "jedis"));
        reply.put("supports", supports);
        return reply;
    }

    @Override
    public Map<String, Object> acquire(String lock, long leaseMs, long waitMs, boolean autoRenew)
        throws Exception {
        if (autoRenew) {
            throw new Protocol.Refused("error", "the articles' Jedis lock has no watchdog");
        }
        String token = UUID.randomUUID().toString();
        SetParams params = leaseMs > 0 ? SetParams.setParams().nx().px(leaseMs) : SetParams.setParams().nx();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        while (!"OK".equals(jedis.set(lock, token, params))) {
            long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (leftMs <= 0) {
                throw new Protocol.Refused("timeout", "not acquired within " + waitMs + " ms");
            }
            Thread.sleep(Math.min(RETRY_MS, leftMs));
        }
        tokens.put(lock, token);
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("token", token);
        return reply;
    }

    @Override
    public void release(String lock) throws Exception {
        String token = tokens.remove(lock);
        Object deleted = jedis.eval(RELEASE, List.of(lock), List.of(token));
        if (!(deleted instanceof Long) || (Long) deleted != 1) {
            throw new Protocol.Refused("not-held", "the lock no longer holds this worker's token");
        }
    }

    @Override
    public void extend(String lock, long leaseMs) throws Exception {
        throw new Protocol.Refused("unsupported", "the articles' Jedis lock has no extend");
    }

    @Override
    public Long read(String key) {
        String value = jedis.get(key);
        return value == null ? null : Long.parseLong(value);
    }

    @Override
    public void write(String key, long value) {
        jedis.set(key, String.valueOf(value));
    }
}
