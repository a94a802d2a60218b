// A tiny Java bot for the arena's memory-limit test: it answers hello and every act with the
// first legal action, and exits on quit. No JSON library: it picks the fields out of the line.
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class TinyBot {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = in.readLine()) != null) {
            String type = field(line, "\"type\":\"", "\"");
            String id = field(line, "\"id\":", ",}");
            if ("hello".equals(type)) {
                System.out.println("{\"id\":" + id + ",\"name\":\"tiny-java\",\"protocol\":1}");
            } else if ("act".equals(type)) {
                String legal = line.substring(line.indexOf("\"legal\":[") + 9);
                String first = legal.substring(0, indexOfAny(legal, ",]"));
                System.out.println("{\"id\":" + id + ",\"action\":" + first + "}");
            } else if ("quit".equals(type)) {
                break;
            }
            System.out.flush();
        }
    }

    static String field(String line, String key, String ends) {
        int start = line.indexOf(key);
        if (start < 0) return null;
        start += key.length();
        return line.substring(start, start + indexOfAny(line.substring(start), ends));
    }

    static int indexOfAny(String text, String chars) {
        for (int i = 0; i < text.length(); i++) {
            if (chars.indexOf(text.charAt(i)) >= 0) return i;
        }
        return text.length();
    }
}
