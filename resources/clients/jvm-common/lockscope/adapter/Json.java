// The JSON of the client protocol's lines, read and written without a JSON library: the JVM adapters each
// pin their lock library and nothing else (Redisson and Jedis bring different JSON libraries, or none).
package lockscope.adapter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class Json {
    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    /** One JSON value: a Map (objects keep their order), List, String, Long, Double, Boolean or null. */
    public static Object parse(String text) {
        Json json = new Json(text);
        Object value = json.value();
        json.space();
        if (json.at != text.length()) {
            throw json.error("text after the value");
        }
        return value;
    }

    public static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("not JSON: " + what + " at character " + at);
    }

    private void space() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            ++at;
        }
    }

    private char next() {
        space();
        if (at >= text.length()) {
            throw error("end of line");
        }
        return text.charAt(at);
    }

    private void expect(String word) {
        if (!text.startsWith(word, at)) {
            throw error("expected " + word);
        }
        at += word.length();
    }

    private Object value() {
        char c = next();
        switch (c) {
        case '{':
            return object();
        case '[':
            return array();
        case '"':
            return string();
        case 't':
            expect("true");
            return Boolean.TRUE;
        case 'f':
            expect("false");
            return Boolean.FALSE;
        case 'n':
            expect("null");
            return null;
        default:
            return number();
        }
    }

    private Map<String, Object> object() {
        Map<String, Object> map = new LinkedHashMap<>();
        ++at;
        if (next() == '}') {
            ++at;
            return map;
        }
        for (;;) {
            if (next() != '"') {
                throw error("expected a name");
            }
            String name = string();
            if (next() != ':') {
                throw error("expected :");
            }
            ++at;
            map.put(name, value());
            char c = next();
            ++at;
            if (c == '}') {
                return map;
            }
            if (c != ',') {
                throw error("expected , or }");
            }
        }
    }

    private List<Object> array() {
        List<Object> list = new ArrayList<>();
        ++at;
        if (next() == ']') {
            ++at;
            return list;
        }
        for (;;) {
            list.add(value());
            char c = next();
            ++at;
            if (c == ']') {
                return list;
            }
            if (c != ',') {
                throw error("expected , or ]");
            }
        }
    }

    private String string() {
        StringBuilder out = new StringBuilder();
        ++at;
        while (at < text.length()) {
            char c = text.charAt(at++);
            if (c == '"') {
                return out.toString();
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (at >= text.length()) {
                break;
            }
            char e = text.charAt(at++);
            switch (e) {
            case 'b': out.append('\b'); break;
            case 'f': out.append('\f'); break;
            case 'n': out.append('\n'); break;
            case 'r': out.append('\r'); break;
            case 't': out.append('\t'); break;
            case 'u':
                if (at + 4 > text.length()) {
                    throw error("a short \\u escape");
                }
                out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                at += 4;
                break;
            default: out.append(e); break;
            }
        }
        throw error("an unterminated string");
    }

    private Object number() {
        int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
            ++at;
        }
        String n = text.substring(start, at);
        if (n.isEmpty()) {
            throw error("unexpected character");
        }
        try {
            if (n.indexOf('.') < 0 && n.indexOf('e') < 0 && n.indexOf('E') < 0) {
                return Long.parseLong(n);
            }
            double d = Double.parseDouble(n);
            return d == Math.rint(d) && Math.abs(d) < 9.0e15 ? (Object) (long) d : (Object) d;
        } catch (NumberFormatException ex) {
            throw error("a bad number " + n);
        }
    }

    private static void write(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String) {
            quote((String) value, out);
        } else if (value instanceof Boolean || value instanceof Long || value instanceof Integer) {
            out.append(value);
        } else if (value instanceof Number) {
            double d = ((Number) value).doubleValue();
            out.append(Double.isFinite(d) ? String.valueOf(d) : "null");
        } else if (value instanceof Map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                out.append(first ? "" : ",");
                first = false;
                quote(String.valueOf(e.getKey()), out);
                out.append(':');
                write(e.getValue(), out);
            }
            out.append('}');
        } else if (value instanceof List) {
            out.append('[');
            boolean first = true;
            for (Object v : (List<?>) value) {
                out.append(first ? "" : ",");
                first = false;
                write(v, out);
            }
            out.append(']');
        } else {
            quote(value.toString(), out);
        }
    }

    private static void quote(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); ++i) {
            char c = s.charAt(i);
            switch (c) {
            case '"': out.append("\\\""); break;
            case '\\': out.append("\\\\"); break;
            case '\n': out.append("\\n"); break;
            case '\r': out.append("\\r"); break;
            case '\t': out.append("\\t"); break;
            default:
                if (c < 0x20) {
                    out.append(String.format("\\u%04x", (int) c));
                } else {
                    out.append(c);
                }
            }
        }
        out.append('"');
    }
}
