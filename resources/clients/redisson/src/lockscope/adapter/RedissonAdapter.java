// LockScope client adapter for Redisson (docs/client-protocol.md): RLock, RFairLock or RFencedLock (the
// option "lock": "reentrant", "fair" or "fenced"), through Redisson's own API on servers[0], so that the
// Simulator's workers lock the way Redisson applications do.
//
// acquire is tryLock(wait_ms, lease_ms) — or tryLock(wait_ms) with auto_renew, which is Redisson's watchdog:
// the lease is then lockWatchdogTimeout (the option "watchdog_timeout_ms", Redisson's default 30 000),
// renewed every third of it, and the reply says so in lease_ms. Each renewal the watchdog makes is reported as a
// renewed event: the adapter watches the watchdog's renewal command pass through Redisson's connections (its
// NettyHook) and writes the event once Redis's reply says which locks it extended. Redisson never tells the
// application that a renewal found its lock gone (it stops renewing silently), so there is no lost event.
//
// Every lock operation runs on the thread that reads standard input: Redisson's locks belong to a thread.
// Redisson makes no lock without expiry (a lease of 0 is its watchdog) and has no owner-checked extend.
package lockscope.adapter;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RBucket;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.NettyHook;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.CommandData;
import org.redisson.client.protocol.decoder.ContainsDecoder;
import org.redisson.config.Config;

public final class RedissonAdapter implements Protocol.Handler {
    private enum Kind { REENTRANT, FAIR, FENCED }

    private final Protocol protocol;
    private RedissonClient redisson;
    private Kind kind = Kind.REENTRANT;
    private long watchdogMs = 30000;
    // The lock object of each lock the worker holds, and how many holds: a re-entry uses the same object.
    private final Map<String, RLock> locks = new HashMap<>();
    private final Map<String, Integer> holds = new HashMap<>();

    private RedissonAdapter(Protocol protocol) {
        this.protocol = protocol;
    }

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("--version")) {
            System.out.println(Versions.of(Redisson.class, "org.redisson", "redisson"));
            return;
        }
        Protocol protocol = new Protocol();
        protocol.run(new RedissonAdapter(protocol));
    }

    @Override
    public Map<String, Object> hello(List<Object> servers, Map<String, Object> options) throws Exception {
        String lock = String.valueOf(Protocol.option(options, "lock", "reentrant"));
        switch (lock) {
        case "reentrant": kind = Kind.REENTRANT; break;
        case "fair": kind = Kind.FAIR; break;
        case "fenced": kind = Kind.FENCED; break;
        default:
            throw new Protocol.Refused("error", "option lock: " + lock + " is not reentrant, fair or fenced");
        }
        Object watchdog = Protocol.option(options, "watchdog_timeout_ms", watchdogMs);
        if (!(watchdog instanceof Number) || ((Number) watchdog).longValue() < 3) {
            throw new Protocol.Refused("error",
                                       "option watchdog_timeout_ms: a number of milliseconds (3 or more)");
        }
        watchdogMs = ((Number) watchdog).longValue();

        Config config = new Config();
        config.setLockWatchdogTimeout(watchdogMs);
        config.setNettyHook(new RenewalWatch());
        // One worker thread: a small pool instead of Redisson's 24 idle connections per client.
        config.useSingleServer()
            .setAddress("redis://" + Protocol.address(servers, 0))
            .setConnectionMinimumIdleSize(2)
            .setConnectionPoolSize(4)
            .setSubscriptionConnectionMinimumIdleSize(1)
            .setConnectTimeout(5000);
        redisson = Redisson.create(config); // connects now: an unreachable server fails the hello

        Map<String, Object> supports = new LinkedHashMap<>();
        supports.put("lease", true);
        supports.put("no_lease", false); // a lease of 0 is the watchdog's, never a lock without expiry
        supports.put("extend", false); // RLock has no extend that checks the owner
        supports.put("auto_renewal", true);
        supports.put("renewal_events", true);
        supports.put("reentrant", true);
        supports.put("fencing", kind == Kind.FENCED);
        // RFairLock's unlock of a lock that expired (nobody holds it) succeeds: its script returns 1 when
        // the lock key is gone. RLock's and RFencedLock's throw IllegalMonitorStateException.
        supports.put("release_not_held", kind != Kind.FAIR);
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("library", "redisson");
        reply.put("version", Versions.of(Redisson.class, "org.redisson", "redisson"));
        reply.put("supports", supports);
        return reply;
    }

    private RLock lockObject(String name) {
        RLock lock = locks.get(name);
        if (lock == null) {
            lock = kind == Kind.FAIR ? redisson.getFairLock(name)
                : kind == Kind.FENCED ? redisson.getFencedLock(name)
                                      : redisson.getLock(name);
        }
        return lock;
    }

    @Override
    public Map<String, Object> acquire(String name, long leaseMs, long waitMs, boolean autoRenew)
        throws Exception {
        if (!autoRenew && leaseMs <= 0) {
            throw new Protocol.Refused("error", "Redisson makes no lock without expiry: a lease of 0 is its "
                                                    + "watchdog's (ask for auto_renew)");
        }
        RLock lock = lockObject(name);
        long lease = autoRenew ? -1 : leaseMs; // -1: Redisson's watchdog
        Map<String, Object> reply = new LinkedHashMap<>();
        if (kind == Kind.FENCED) {
            Long fence = ((RFencedLock) lock).tryLockAndGetToken(waitMs, lease, TimeUnit.MILLISECONDS);
            if (fence == null) {
                throw new Protocol.Refused("timeout", "not acquired within " + waitMs + " ms");
            }
            reply.put("fence", fence);
        } else if (!lock.tryLock(waitMs, lease, TimeUnit.MILLISECONDS)) {
            throw new Protocol.Refused("timeout", "not acquired within " + waitMs + " ms");
        }
        locks.put(name, lock);
        holds.merge(name, 1, Integer::sum);
        // The hash field Redisson wrote: its client id and the holding thread's id.
        reply.put("token", redisson.getId() + ":" + Thread.currentThread().getId());
        if (autoRenew && watchdogMs != leaseMs) {
            reply.put("lease_ms", watchdogMs);
        }
        return reply;
    }

    @Override
    public void release(String name) throws Exception {
        RLock lock = locks.get(name);
        int left = holds.merge(name, -1, Integer::sum);
        if (left <= 0) {
            locks.remove(name);
            holds.remove(name);
        }
        try {
            lock.unlock();
        } catch (IllegalMonitorStateException e) {
            locks.remove(name);
            holds.remove(name);
            throw new Protocol.Refused("not-held", Protocol.oneLine(e));
        }
    }

    @Override
    public void extend(String lock, long leaseMs) throws Exception {
        throw new Protocol.Refused("unsupported", "Redisson's locks have no extend that checks the owner; "
                                                      + "its watchdog renews them (auto_renew)");
    }

    @Override
    public Long read(String key) {
        RBucket<String> bucket = redisson.getBucket(key, StringCodec.INSTANCE);
        String value = bucket.get();
        return value == null ? null : Long.parseLong(value);
    }

    @Override
    public void write(String key, long value) {
        RBucket<String> bucket = redisson.getBucket(key, StringCodec.INSTANCE);
        bucket.set(String.valueOf(value));
    }

    /**
     * Sees the watchdog's renewal command on its way to Redis: an EVAL (or EVALSHA) whose reply Redisson
     * decodes with a ContainsDecoder, the list of the locks it extended (renewal.LockTask). Its keys are the
     * lock names, its first argument the lease it sets. Nothing else this adapter sends is decoded so.
     */
    private final class RenewalWatch implements NettyHook {
        @Override
        public void afterBoostrapInitialization(Bootstrap bootstrap) {
        }

        @Override
        public void afterChannelInitialization(Channel channel) {
            // Last in the pipeline: an outbound write passes it first, as the CommandData Redisson sent.
            channel.pipeline().addLast(new ChannelOutboundHandlerAdapter() {
                @Override
                public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise)
                    throws Exception {
                    if (msg instanceof CommandData) {
                        watch((CommandData<?, ?>) msg);
                    }
                    super.write(ctx, msg, promise);
                }
            });
        }

        private void watch(CommandData<?, ?> data) {
            if (!(data.getCommand().getReplayMultiDecoder() instanceof ContainsDecoder)) {
                return;
            }
            Object[] params = data.getParams(); // script or sha, key count, keys..., lease, owner fields...
            if (params.length < 3 || !(params[1] instanceof Number)) {
                return;
            }
            int keys = ((Number) params[1]).intValue();
            Object lease = params.length > 2 + keys ? params[2 + keys] : null;
            data.getPromise().whenComplete((renewed, error) -> {
                if (error != null || !(renewed instanceof List)) {
                    return;
                }
                for (Object name : (List<?>) renewed) {
                    Map<String, Object> event = new LinkedHashMap<>();
                    event.put("event", "renewed");
                    event.put("lock", String.valueOf(name));
                    if (lease instanceof Number) {
                        event.put("lease_ms", ((Number) lease).longValue());
                    }
                    protocol.event(event);
                }
            });
        }
    }
}
