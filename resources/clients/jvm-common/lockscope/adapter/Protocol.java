// The client protocol (docs/client-protocol.md) for LockScope's JVM adapters: one JSON request a line on
// standard input, one reply a line on standard output, in order, flushed; events from any thread in between.
// Each adapter gives the library's side (a Handler); this class keeps the conversation, the worker's hold
// counts (a release or extend of a lock the worker does not hold answers not-held without asking the
// library), and the exit on end of input, at once, whatever the library's threads are doing.
package lockscope.adapter;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class Protocol {
    /** A refusal the protocol has a reason for: "timeout", "not-held", "unsupported" (or "error"). */
    public static final class Refused extends Exception {
        public final String reason;

        public Refused(String reason, String error) {
            super(error);
            this.reason = reason;
        }
    }

    /** The library's side of the conversation. Every call comes on the thread that reads standard input. */
    public interface Handler {
        /** Connects and answers library, version and supports. */
        Map<String, Object> hello(List<Object> servers, Map<String, Object> options) throws Exception;

        /** Acquires, or throws Refused("timeout") after about waitMs; the reply's fields (token, fence). */
        Map<String, Object> acquire(String lock, long leaseMs, long waitMs, boolean autoRenew)
            throws Exception;

        /** Releases one hold the worker has; Refused("not-held") when the library says it was not its own. */
        void release(String lock) throws Exception;

        void extend(String lock, long leaseMs) throws Exception;

        /** The integer at key, or null. */
        Long read(String key) throws Exception;

        void write(String key, long value) throws Exception;
    }

    private final PrintStream out;
    private final Map<String, Integer> holds = new HashMap<>();

    public Protocol() {
        // Standard output is the protocol's alone: what a library prints goes to standard error.
        out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
    }

    /** Writes an event line (renewed, lost); any thread. */
    public void event(Map<String, Object> event) {
        line(event);
    }

    private synchronized void line(Map<String, Object> message) {
        out.print(Json.write(message));
        out.print('\n');
        out.flush();
    }

    /** Answers requests until standard input ends or a quit, then ends the process. */
    public void run(Handler handler) {
        InputStreamReader stdin = new InputStreamReader(System.in, StandardCharsets.UTF_8);
        try (BufferedReader in = new BufferedReader(stdin)) {
            for (String text; (text = in.readLine()) != null;) {
                if (text.trim().isEmpty()) {
                    continue;
                }
                Map<String, Object> request = asMap(Json.parse(text));
                String op = String.valueOf(request.get("op"));
                line(answer(handler, op, request));
                if (op.equals("quit")) {
                    break;
                }
            }
        } catch (Exception e) {
            System.err.println("lockscope adapter: cannot read the protocol: " + oneLine(e));
        }
        // Nothing is released: what the worker holds stays in Redis, as with any client that goes away.
        // halt(), not exit(): the library's non-daemon threads and shutdown hooks would hold up the end.
        out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(0);
    }

    private Map<String, Object> answer(Handler handler, String op, Map<String, Object> request) {
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("id", request.get("id"));
        reply.put("ok", true);
        try {
            switch (op) {
            case "hello":
                reply.putAll(handler.hello(asList(request.get("servers")), asMap(request.get("options"))));
                break;
            case "acquire": {
                String lock = (String) request.get("lock");
                reply.putAll(handler.acquire(lock, number(request, "lease_ms"), number(request, "wait_ms"),
                                             Boolean.TRUE.equals(request.get("auto_renew"))));
                holds.merge(lock, 1, Integer::sum);
                break;
            }
            case "release": {
                String lock = (String) request.get("lock");
                if (holds.getOrDefault(lock, 0) == 0) {
                    throw new Refused("not-held", "not held by this worker");
                }
                holds.merge(lock, -1, Integer::sum);
                try {
                    handler.release(lock);
                } catch (Refused e) {
                    holds.remove(lock); // the library says none of it was this worker's any more
                    throw e;
                }
                break;
            }
            case "extend": {
                String lock = (String) request.get("lock");
                if (holds.getOrDefault(lock, 0) == 0) {
                    throw new Refused("not-held", "not held by this worker");
                }
                handler.extend(lock, number(request, "lease_ms"));
                break;
            }
            case "read":
                reply.put("value", handler.read((String) request.get("key")));
                break;
            case "write":
                handler.write((String) request.get("key"), number(request, "value"));
                break;
            case "quit":
                break;
            default:
                throw new Refused("unsupported", "unknown op " + op);
            }
        } catch (Refused e) {
            reply.put("ok", false);
            reply.put("reason", e.reason);
            reply.put("error", e.getMessage());
        } catch (Throwable e) {
            reply.put("ok", false);
            reply.put("reason", "error");
            reply.put("error", oneLine(e));
        }
        return reply;
    }

    /** "RedisTimeoutException: Command execution timeout for ...": one line a person can read. */
    public static String oneLine(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getMessage() != null
               && cause.getMessage().equals(String.valueOf(cause.getCause()))) {
            cause = cause.getCause(); // a wrapper that only repeats its cause
        }
        String text = cause.getClass().getSimpleName() + ": " + cause.getMessage();
        return text.replace('\n', ' ').replace('\r', ' ');
    }

    private static long number(Map<String, Object> request, String name) {
        Object v = request.get(name);
        return v instanceof Number ? ((Number) v).longValue() : 0;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(Object v) {
        return v instanceof Map ? (Map<String, Object>) v : new LinkedHashMap<>();
    }

    @SuppressWarnings("unchecked")
    private static List<Object> asList(Object v) {
        return v instanceof List ? (List<Object>) v : List.of();
    }

    /** The n-th server's host and port ("servers" of hello). */
    public static String address(List<Object> servers, int n) {
        Map<String, Object> server = asMap(servers.get(n));
        return server.get("host") + ":" + server.get("port");
    }

    public static String host(List<Object> servers, int n) {
        return String.valueOf(asMap(servers.get(n)).get("host"));
    }

    public static int port(List<Object> servers, int n) {
        Object port = asMap(servers.get(n)).get("port");
        return port instanceof Number ? ((Number) port).intValue() : 6379;
    }

    /** An option of hello's options: its value, or `otherwise` when absent. */
    public static Object option(Map<String, Object> options, String name, Object otherwise) {
        return options.containsKey(name) ? options.get(name) : otherwise;
    }
}
