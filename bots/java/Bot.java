/*
 * Random starter bot in Java: answers every decision with a uniformly random legal action.
 *
 * Plays both "blackout" and "partnership-blackout": it never looks at the rules, the arena's
 * "legal" list is all it needs. The generator is re-seeded from game_start.seed at the start of
 * every game, so replaying a tournament replays this bot's choices too.
 *
 * Standard library only, with a small JSON reader of its own (Json below), so one javac line
 * builds it:
 *   javac -d bots/java bots/java/Bot.java
 *   java -cp bots/java Bot
 * See bots/java/README.md, and docs/protocol.md ("For JVM authors") on start time and memory.
 */

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.BufferedOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

public final class Bot {
    static final String NAME = "random-java";

    public static void main(String[] args) throws IOException {
        // System.out flushes only on println when autoflush is on; be explicit instead: one
        // buffered stream, flushed after every reply (an unflushed reply is a timeout).
        PrintStream out = new PrintStream(
            new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16),
            false, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(
            new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        SplittableRandom rng = new SplittableRandom(0);
        String line;
        while ((line = in.readLine()) != null) {  // null: the arena closed our stdin
            if (line.isBlank()) {
                continue;
            }
            Object parsed = Json.parse(line);
            if (!(parsed instanceof Map)) {
                continue;
            }
            Map<?, ?> message = (Map<?, ?>) parsed;
            Object type = message.get("type");
            if ("act".equals(type)) {
                List<?> legal = (List<?>) message.get("legal");
                Object action = legal.get(rng.nextInt(legal.size()));
                out.print("{\"id\":" + Json.write(message.get("id"))
                          + ",\"action\":" + Json.write(action) + "}\n");
                out.flush();
            } else if ("game_start".equals(type)) {
                Object seed = message.get("seed");
                rng = new SplittableRandom(seed instanceof Number ? ((Number) seed).longValue() : 0);
            } else if ("hello".equals(type)) {
                out.print("{\"id\":" + Json.write(message.get("id"))
                          + ",\"name\":\"" + NAME + "\",\"protocol\":1}\n");
                out.flush();
            } else if ("quit".equals(type)) {
                break;
            }
            // Everything else (deal_start, event, game_end, unknown types) is information we ignore.
        }
        out.flush();
    }
}

/**
 * A small JSON reader and writer: objects as LinkedHashMap, arrays as ArrayList, strings, numbers
 * (Long, BigInteger past 64 bits, Double with a fraction or exponent), Boolean and null.
 */
final class Json {
    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    /** One JSON value from a whole line; IllegalArgumentException when it is not JSON. */
    static Object parse(String text) {
        Json reader = new Json(text);
        Object value = reader.value();
        reader.space();
        if (reader.at != text.length()) {
            throw reader.error("trailing characters");
        }
        return value;
    }

    /** A value read by parse (a number, string, boolean or null; lists and maps too) as JSON. */
    static String write(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof String) {
            return quote((String) value);
        }
        if (value instanceof List) {
            StringBuilder out = new StringBuilder("[");
            for (Object item : (List<?>) value) {
                out.append(out.length() > 1 ? "," : "").append(write(item));
            }
            return out.append(']').toString();
        }
        if (value instanceof Map) {
            StringBuilder out = new StringBuilder("{");
            for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
                out.append(out.length() > 1 ? "," : "").append(quote(String.valueOf(entry.getKey())))
                   .append(':').append(write(entry.getValue()));
            }
            return out.append('}').toString();
        }
        return String.valueOf(value);  // Long, BigInteger, Double, Boolean
    }

    static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
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
        return out.append('"').toString();
    }

    private IllegalArgumentException error(String problem) {
        return new IllegalArgumentException("JSON: " + problem + " at character " + at);
    }

    private void space() {
        while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
    }

    private Object value() {
        space();
        if (at >= text.length()) {
            throw error("unexpected end");
        }
        char c = text.charAt(at);
        switch (c) {
            case '{': return object();
            case '[': return array();
            case '"': return string();
            case 't': return literal("true", Boolean.TRUE);
            case 'f': return literal("false", Boolean.FALSE);
            case 'n': return literal("null", null);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return number();
                }
                throw error("unexpected '" + c + "'");
        }
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, at)) {
            throw error("expected " + word);
        }
        at += word.length();
        return value;
    }

    private Map<String, Object> object() {
        Map<String, Object> map = new LinkedHashMap<>();
        at++;  // '{'
        space();
        if (at < text.length() && text.charAt(at) == '}') {
            at++;
            return map;
        }
        while (true) {
            space();
            if (at >= text.length() || text.charAt(at) != '"') {
                throw error("expected a key");
            }
            String key = string();
            space();
            expect(':');
            map.put(key, value());
            space();
            if (at < text.length() && text.charAt(at) == ',') {
                at++;
                continue;
            }
            expect('}');
            return map;
        }
    }

    private List<Object> array() {
        List<Object> list = new ArrayList<>();
        at++;  // '['
        space();
        if (at < text.length() && text.charAt(at) == ']') {
            at++;
            return list;
        }
        while (true) {
            list.add(value());
            space();
            if (at < text.length() && text.charAt(at) == ',') {
                at++;
                continue;
            }
            expect(']');
            return list;
        }
    }

    private void expect(char c) {
        if (at >= text.length() || text.charAt(at) != c) {
            throw error("expected '" + c + "'");
        }
        at++;
    }

    private String string() {
        StringBuilder out = new StringBuilder();
        at++;  // '"'
        while (true) {
            if (at >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(at++);
            if (c == '"') {
                return out.toString();
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (at >= text.length()) {
                throw error("unterminated escape");
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
                        throw error("short \\u escape");
                    }
                    out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                    break;
                default: out.append(e);  // '"', '\\', '/'
            }
        }
    }

    private Object number() {
        int start = at;
        boolean fraction = false;
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c == '.' || c == 'e' || c == 'E') {
                fraction = true;
            } else if (!(c == '-' || c == '+' || (c >= '0' && c <= '9'))) {
                break;
            }
            at++;
        }
        String digits = text.substring(start, at);
        try {
            if (fraction) {
                return Double.parseDouble(digits);
            }
            BigInteger big = new BigInteger(digits);
            return big.bitLength() < 64 ? (Object) big.longValue() : big;
        } catch (NumberFormatException bad) {
            throw error("bad number '" + digits + "'");
        }
    }
}
