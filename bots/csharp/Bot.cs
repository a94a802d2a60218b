// The C# starter bot (Mono or .NET, standard library only): a greedy heuristic for both games.
//
// - Blackout bid: the tricks the hand should take (aces, guarded kings and queens, high trumps,
//   length in trumps), the nearest legal bid (so the hook option is respected).
// - Blackout play: while the bid is not made, win the trick as cheaply as possible (lead the
//   strongest card); once it is made, play the highest card that cannot win.
// - Partnership auction: call the hand's own tricks (at least 1), `pass` when the other team has
//   outbid both partners for good.
// - Partnership play: duck every trick against a zero contract; otherwise win what the team can,
//   never overtaking a partner who holds the trick.
//
// Protocol: one JSON object per line on stdin; reply to `hello` and `act` with one line, flushed.
using System;
using System.Collections.Generic;
using System.IO;
using System.Text;

static class Program {
    const string Name = "greedy-csharp";

    static void Main() {
        var input = new StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false));
        // Our own writer on the raw stream: no byte-order mark, "\n" line ends, and a Flush we call.
        var output = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false));
        Console.Error.WriteLine(Name + ": ready");
        string line;
        while ((line = input.ReadLine()) != null) {  // null: end of input, the arena is done
            if (line.Trim().Length == 0) continue;
            Dictionary<string, object> message;
            try {
                message = Json.Parse(line) as Dictionary<string, object>;
            } catch (FormatException error) {
                Console.Error.WriteLine(Name + ": not a JSON message: " + error.Message);
                continue;
            }
            if (message == null) continue;
            string type = Json.Str(message, "type");
            if (type == "hello") {
                Reply(output, "{\"id\":" + Json.Write(message["id"]) + ",\"name\":\"" + Name + "\",\"protocol\":1}");
            } else if (type == "act") {
                var legal = message["legal"] as List<object>;
                int choice = 0;
                try {
                    choice = Strategy.Decide(Json.Str(message, "kind"), (Dictionary<string, object>)message["view"], legal);
                } catch (Exception error) {  // a bug in a decision must not cost the game
                    Console.Error.WriteLine(Name + ": " + error.Message + "; playing the first legal action");
                }
                Reply(output, "{\"id\":" + Json.Write(message["id"]) + ",\"action\":" + Json.Write(legal[choice]) + "}");
            } else if (type == "quit") {
                return;
            }  // every other message type: information we do not need
        }
    }

    static void Reply(StreamWriter output, string text) {
        output.Write(text);
        output.Write('\n');
        output.Flush();  // without it the reply waits in the buffer, and the decision times out
    }
}

/// Cards as (rank 0..12, suit letter): "TD" is the ten of diamonds.
struct Card {
    public readonly int Rank;
    public readonly char Suit;
    const string Ranks = "23456789TJQKA";

    public Card(string text) {
        if (text == null || text.Length != 2 || Ranks.IndexOf(text[0]) < 0 || "CDHS".IndexOf(text[1]) < 0)
            throw new FormatException("not a card: " + text);
        Rank = Ranks.IndexOf(text[0]);
        Suit = text[1];
    }
}

static class Strategy {
    /// The index in `legal` of the action to take.
    public static int Decide(string kind, Dictionary<string, object> view, List<object> legal) {
        if (kind == "bid") return Closest(Estimate(Hand(view), Trump(view)), legal);
        if (kind == "call") return Call(view, legal);
        if (kind == "play") return Play(view, legal);
        throw new ArgumentException("an act of an unknown kind " + kind);
    }

    static List<Card> Hand(Dictionary<string, object> view) {
        var hand = new List<Card>();
        foreach (var card in (List<object>)view["hand"]) hand.Add(new Card((string)card));
        return hand;
    }

    static char? Trump(Dictionary<string, object> view) {
        var trump = view.ContainsKey("trump") ? view["trump"] as string : null;
        return trump == null ? (char?)null : trump[0];
    }

    /// The tricks a hand should take: tops and guarded honours, high and long trumps.
    static double Estimate(List<Card> hand, char? trump) {
        double tricks = 0;
        foreach (var card in hand) {
            int length = hand.FindAll(other => other.Suit == card.Suit).Count;
            if (card.Suit == trump) {
                tricks += card.Rank >= 9 ? 1.0 : length >= 3 ? 0.5 : 0.2;
            } else if (card.Rank == 12) {
                tricks += 0.9;
            } else if (card.Rank == 11 && length >= 2) {
                tricks += 0.6;
            } else if (card.Rank == 10 && length >= 3) {
                tricks += 0.3;
            }
        }
        return Math.Min(tricks, hand.Count);
    }

    /// The index of the legal number nearest to `target` (the lower one on a tie).
    static int Closest(double target, List<object> legal) {
        int best = -1;
        double distance = double.MaxValue;
        for (int i = 0; i < legal.Count; i++) {
            var number = legal[i] as Json.Number;
            if (number == null) continue;
            double gap = Math.Abs(double.Parse(number.Text) - target);
            if (gap < distance) { best = i; distance = gap; }
        }
        if (best < 0) throw new ArgumentException("no number among the legal actions");
        return best;
    }

    static int Call(Dictionary<string, object> view, List<object> legal) {
        int seat = Json.Int(view, "seat");
        var calls = (List<object>)view["calls"];
        int ours = 0, theirs = 0, theirCalls = 0;
        bool theyStopped = false;
        foreach (List<object> call in calls) {
            int caller = int.Parse(((Json.Number)call[0]).Text);
            var number = call[1] as Json.Number;
            bool partner = caller % 2 == seat % 2;
            if (partner) { if (number != null) ours += int.Parse(number.Text); continue; }
            theirCalls++;
            if (number != null) theirs += int.Parse(number.Text); else theyStopped = true;
        }
        double mine = Math.Max(1, Math.Min(12, Math.Floor(Estimate(Hand(view), 'S') + 0.2)));
        int pass = legal.FindIndex(action => action as string == "pass");
        if (pass >= 0 && ours > 0 && (theirCalls >= 2 || theyStopped) && Math.Min(12, ours + mine) < theirs)
            return pass;  // hopeless: the other team wins the auction whatever we call
        return Closest(mine, legal);
    }

    /// Whether `card` beats `best`, the card winning the trick so far.
    static bool Beats(Card card, Card best, char? trump) {
        if (card.Suit == best.Suit) return card.Rank > best.Rank;
        return card.Suit == trump;
    }

    static int Danger(Card card, char? trump) { return card.Rank + (card.Suit == trump ? 13 : 0); }

    static int Play(Dictionary<string, object> view, List<object> legal) {
        char? trump = Trump(view);
        int seat = Json.Int(view, "seat");
        var cards = new List<Card>();
        foreach (var action in legal) cards.Add(new Card(action as string));
        bool partnership = Json.Str(view, "game") == "partnership-blackout";
        bool wantTricks;
        if (partnership) {
            var contract = view["contract"] as Dictionary<string, object>;
            wantTricks = contract == null || Json.Str(contract, "kind") != "zero";
        } else {
            int bid = 0;
            foreach (List<object> each in (List<object>)view["bids"])
                if (int.Parse(((Json.Number)each[0]).Text) == seat) bid = int.Parse(((Json.Number)each[1]).Text);
            var won = (List<object>)view["tricks_won"];
            wantTricks = bid > int.Parse(((Json.Number)won[seat]).Text);
        }
        var trick = (List<object>)view["trick"];
        if (trick.Count == 0)  // leading: our strongest card to win, our weakest to lose
            return wantTricks ? Extreme(cards, trump, true) : Extreme(cards, trump, false);
        int winnerSeat = -1;
        Card best = default(Card);
        foreach (List<object> played in trick) {
            var card = new Card((string)played[1]);
            if (winnerSeat < 0 || Beats(card, best, trump)) {
                best = card;
                winnerSeat = int.Parse(((Json.Number)played[0]).Text);
            }
        }
        bool partnerHolds = partnership && winnerSeat % 2 == seat % 2;
        var winners = new List<int>();
        var losers = new List<int>();
        for (int i = 0; i < cards.Count; i++) (Beats(cards[i], best, trump) ? winners : losers).Add(i);
        if (wantTricks && !partnerHolds && winners.Count > 0) return Cheapest(cards, winners, trump);
        if (losers.Count > 0) return wantTricks ? Cheapest(cards, losers, trump) : Dearest(cards, losers, trump);
        return Cheapest(cards, winners, trump);  // every card wins: the least valuable
    }

    static int Extreme(List<Card> cards, char? trump, bool highest) {
        var all = new List<int>();
        for (int i = 0; i < cards.Count; i++) all.Add(i);
        return highest ? Dearest(cards, all, trump) : Cheapest(cards, all, trump);
    }

    static int Cheapest(List<Card> cards, List<int> among, char? trump) {
        int best = among[0];
        foreach (int i in among) if (Danger(cards[i], trump) < Danger(cards[best], trump)) best = i;
        return best;
    }

    static int Dearest(List<Card> cards, List<int> among, char? trump) {
        int best = among[0];
        foreach (int i in among) if (Danger(cards[i], trump) > Danger(cards[best], trump)) best = i;
        return best;
    }
}

/// A small JSON reader and writer: objects are Dictionary<string, object>, arrays List<object>,
/// strings string, numbers Json.Number (their text as sent: an id or a seed may not fit a long),
/// true/false bool, null null.
static class Json {
    public sealed class Number {
        public readonly string Text;
        public Number(string text) { Text = text; }
    }

    public static string Str(Dictionary<string, object> map, string key) {
        object value;
        return map.TryGetValue(key, out value) ? value as string : null;
    }

    public static int Int(Dictionary<string, object> map, string key) {
        return int.Parse(((Number)map[key]).Text);
    }

    public static object Parse(string text) {
        int at = 0;
        object value = Value(text, ref at);
        Space(text, ref at);
        if (at != text.Length) throw new FormatException("text after the value at " + at);
        return value;
    }

    static void Space(string s, ref int at) {
        while (at < s.Length && (s[at] == ' ' || s[at] == '\t' || s[at] == '\r' || s[at] == '\n' || s[at] == '\uFEFF')) at++;
    }

    static object Value(string s, ref int at) {
        Space(s, ref at);
        if (at >= s.Length) throw new FormatException("unexpected end");
        char c = s[at];
        if (c == '{') {
            var map = new Dictionary<string, object>();
            at++;
            Space(s, ref at);
            if (at < s.Length && s[at] == '}') { at++; return map; }
            while (true) {
                Space(s, ref at);
                string key = String(s, ref at);
                Space(s, ref at);
                Expect(s, ref at, ':');
                map[key] = Value(s, ref at);  // a repeated key: the last one counts
                Space(s, ref at);
                if (at < s.Length && s[at] == ',') { at++; continue; }
                Expect(s, ref at, '}');
                return map;
            }
        }
        if (c == '[') {
            var list = new List<object>();
            at++;
            Space(s, ref at);
            if (at < s.Length && s[at] == ']') { at++; return list; }
            while (true) {
                list.Add(Value(s, ref at));
                Space(s, ref at);
                if (at < s.Length && s[at] == ',') { at++; continue; }
                Expect(s, ref at, ']');
                return list;
            }
        }
        if (c == '"') return String(s, ref at);
        if (s.Length - at >= 4 && string.CompareOrdinal(s, at, "true", 0, 4) == 0) { at += 4; return true; }
        if (s.Length - at >= 5 && string.CompareOrdinal(s, at, "false", 0, 5) == 0) { at += 5; return false; }
        if (s.Length - at >= 4 && string.CompareOrdinal(s, at, "null", 0, 4) == 0) { at += 4; return null; }
        int start = at;
        while (at < s.Length && "+-0123456789.eE".IndexOf(s[at]) >= 0) at++;
        if (at == start) throw new FormatException("unexpected '" + c + "' at " + at);
        return new Number(s.Substring(start, at - start));
    }

    static void Expect(string s, ref int at, char c) {
        if (at >= s.Length || s[at] != c) throw new FormatException("expected '" + c + "' at " + at);
        at++;
    }

    static string String(string s, ref int at) {
        Expect(s, ref at, '"');
        var text = new StringBuilder();
        while (true) {
            if (at >= s.Length) throw new FormatException("unterminated string");
            char c = s[at++];
            if (c == '"') return text.ToString();
            if (c != '\\') { text.Append(c); continue; }
            if (at >= s.Length) throw new FormatException("unterminated string");
            char e = s[at++];
            switch (e) {
                case 'n': text.Append('\n'); break;
                case 't': text.Append('\t'); break;
                case 'r': text.Append('\r'); break;
                case 'b': text.Append('\b'); break;
                case 'f': text.Append('\f'); break;
                case 'u':  // a surrogate pair is two of these, joined again by the StringBuilder
                    if (at + 4 > s.Length) throw new FormatException("short \\u escape");
                    text.Append((char)Convert.ToInt32(s.Substring(at, 4), 16));
                    at += 4;
                    break;
                default: text.Append(e); break;  // \" \\ \/
            }
        }
    }

    /// A value as JSON text (numbers as they came).
    public static string Write(object value) {
        if (value == null) return "null";
        if (value is bool) return (bool)value ? "true" : "false";
        var number = value as Number;
        if (number != null) return number.Text;
        var text = value as string;
        if (text != null) {
            var quoted = new StringBuilder("\"");
            foreach (char c in text) {
                if (c == '"' || c == '\\') quoted.Append('\\').Append(c);
                else if (c < ' ') quoted.Append("\\u").Append(((int)c).ToString("x4"));
                else quoted.Append(c);
            }
            return quoted.Append('"').ToString();
        }
        throw new ArgumentException("only numbers, strings, booleans and null are echoed");
    }
}
