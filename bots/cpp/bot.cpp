// The C++ starter bot (C++17, standard library only): the greedy heuristic of bots/csharp.
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
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

static const char *NAME = "greedy-cpp";

// -- a small JSON reader: numbers keep their text (an id or a seed may not fit a 64-bit integer)
struct Value {
    enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
    bool boolean = false;
    std::string text;  // a number's text as sent, or a string's characters (UTF-8)
    std::vector<Value> items;
    std::map<std::string, Value> fields;  // a repeated key: the last one counts

    const Value &operator[](const std::string &key) const {
        static const Value missing;
        auto found = fields.find(key);
        return found == fields.end() ? missing : found->second;
    }
    long integer() const {
        if (kind != Number) throw std::runtime_error("not a number");
        return std::stol(text);
    }
};

class Parser {
  public:
    explicit Parser(const std::string &text) : s(text) {}
    Value parse() {
        Value value = read();
        space();
        if (at != s.size()) fail("text after the value");
        return value;
    }

  private:
    const std::string &s;
    size_t at = 0;

    [[noreturn]] void fail(const std::string &what) {
        throw std::runtime_error(what + " at " + std::to_string(at));
    }
    void space() {
        while (at < s.size() && (s[at] == ' ' || s[at] == '\t' || s[at] == '\r' || s[at] == '\n')) at++;
    }
    void expect(char c) {
        if (at >= s.size() || s[at] != c) fail(std::string("expected '") + c + "'");
        at++;
    }
    bool word(const char *w) {
        size_t n = std::char_traits<char>::length(w);
        if (s.compare(at, n, w) != 0) return false;
        at += n;
        return true;
    }
    Value read() {
        space();
        if (at >= s.size()) fail("unexpected end");
        Value value;
        char c = s[at];
        if (c == '{') {
            value.kind = Value::Object;
            at++;
            space();
            if (at < s.size() && s[at] == '}') { at++; return value; }
            while (true) {
                space();
                std::string key = string();
                space();
                expect(':');
                value.fields[key] = read();
                space();
                if (at < s.size() && s[at] == ',') { at++; continue; }
                expect('}');
                return value;
            }
        }
        if (c == '[') {
            value.kind = Value::Array;
            at++;
            space();
            if (at < s.size() && s[at] == ']') { at++; return value; }
            while (true) {
                value.items.push_back(read());
                space();
                if (at < s.size() && s[at] == ',') { at++; continue; }
                expect(']');
                return value;
            }
        }
        if (c == '"') {
            value.kind = Value::String;
            value.text = string();
            return value;
        }
        if (word("true") || word("false")) {
            value.kind = Value::Bool;
            value.boolean = s[at - 1] == 'e' && s[at - 2] == 'u';
            return value;
        }
        if (word("null")) return value;
        size_t start = at;
        while (at < s.size() && std::string("+-0123456789.eE").find(s[at]) != std::string::npos) at++;
        if (at == start) fail("unexpected character");
        value.kind = Value::Number;
        value.text = s.substr(start, at - start);
        return value;
    }
    void utf8(unsigned long code, std::string &out) {
        if (code < 0x80) {
            out += char(code);
        } else if (code < 0x800) {
            out += char(0xC0 | (code >> 6));
            out += char(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += char(0xE0 | (code >> 12));
            out += char(0x80 | ((code >> 6) & 0x3F));
            out += char(0x80 | (code & 0x3F));
        } else {
            out += char(0xF0 | (code >> 18));
            out += char(0x80 | ((code >> 12) & 0x3F));
            out += char(0x80 | ((code >> 6) & 0x3F));
            out += char(0x80 | (code & 0x3F));
        }
    }
    unsigned long hex4() {
        if (at + 4 > s.size()) fail("short \\u escape");
        unsigned long code = std::stoul(s.substr(at, 4), nullptr, 16);
        at += 4;
        return code;
    }
    std::string string() {
        expect('"');
        std::string out;
        while (true) {
            if (at >= s.size()) fail("unterminated string");
            char c = s[at++];
            if (c == '"') return out;
            if (c != '\\') { out += c; continue; }
            if (at >= s.size()) fail("unterminated string");
            char e = s[at++];
            switch (e) {
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'u': {
                    unsigned long code = hex4();
                    if (code >= 0xD800 && code < 0xDC00 && s.compare(at, 2, "\\u") == 0) {
                        at += 2;  // a surrogate pair: one character
                        code = 0x10000 + ((code - 0xD800) << 10) + (hex4() - 0xDC00);
                    }
                    utf8(code, out);
                    break;
                }
                default: out += e;  // \" \\ \/
            }
        }
    }
};

// A value as JSON text (numbers as they came).
static std::string write(const Value &value) {
    switch (value.kind) {
        case Value::Number: return value.text;
        case Value::Bool: return value.boolean ? "true" : "false";
        case Value::String: {
            std::string out = "\"";
            for (char c : value.text) {
                if (c == '"' || c == '\\') {
                    out += '\\';
                    out += c;
                } else if (static_cast<unsigned char>(c) < 0x20) {
                    char escaped[8];
                    std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
                    out += escaped;
                } else {
                    out += c;
                }
            }
            return out + "\"";
        }
        default: return "null";
    }
}

// -- cards: rank 0..12 ("23456789TJQKA"), suit letter
struct Card {
    int rank;
    char suit;
};

static Card card_of(const Value &value) {
    static const std::string ranks = "23456789TJQKA";
    const std::string &t = value.text;
    if (value.kind != Value::String || t.size() != 2 || ranks.find(t[0]) == std::string::npos ||
        std::string("CDHS").find(t[1]) == std::string::npos)
        throw std::runtime_error("not a card: " + t);
    return Card{int(ranks.find(t[0])), t[1]};
}

using Trump = std::optional<char>;

static Trump trump_of(const Value &view) {
    const Value &trump = view["trump"];
    if (trump.kind != Value::String || trump.text.empty()) return std::nullopt;
    return trump.text[0];
}

static int danger(Card card, Trump trump) { return card.rank + (trump == card.suit ? 13 : 0); }

// Whether `card` beats `best`, the card winning the trick so far.
static bool beats(Card card, Card best, Trump trump) {
    if (card.suit == best.suit) return card.rank > best.rank;
    return trump == card.suit;
}

// The tricks a hand should take: tops and guarded honours, high and long trumps.
static double estimate(const std::vector<Card> &hand, Trump trump) {
    double tricks = 0;
    for (Card card : hand) {
        long length = std::count_if(hand.begin(), hand.end(), [&](Card o) { return o.suit == card.suit; });
        if (trump == card.suit)
            tricks += card.rank >= 9 ? 1.0 : length >= 3 ? 0.5 : 0.2;
        else if (card.rank == 12)
            tricks += 0.9;
        else if (card.rank == 11 && length >= 2)
            tricks += 0.6;
        else if (card.rank == 10 && length >= 3)
            tricks += 0.3;
    }
    return std::min(tricks, double(hand.size()));
}

static std::vector<Card> hand_of(const Value &view) {
    std::vector<Card> hand;
    for (const Value &card : view["hand"].items) hand.push_back(card_of(card));
    return hand;
}

// The index of the legal number nearest to `target` (the lower one on a tie).
static size_t closest(double target, const std::vector<Value> &legal) {
    std::optional<size_t> best;
    double distance = 1e18;
    for (size_t i = 0; i < legal.size(); i++) {
        if (legal[i].kind != Value::Number) continue;
        double gap = std::fabs(std::stod(legal[i].text) - target);
        if (gap < distance) {
            best = i;
            distance = gap;
        }
    }
    if (!best) throw std::runtime_error("no number among the legal actions");
    return *best;
}

static size_t choose_call(const Value &view, const std::vector<Value> &legal) {
    long seat = view["seat"].integer();
    long ours = 0, theirs = 0, their_calls = 0;
    bool they_stopped = false;
    for (const Value &call : view["calls"].items) {
        bool partner = call.items.at(0).integer() % 2 == seat % 2;
        const Value &said = call.items.at(1);
        if (partner) {
            if (said.kind == Value::Number) ours += said.integer();
            continue;
        }
        their_calls++;
        if (said.kind == Value::Number) theirs += said.integer(); else they_stopped = true;
    }
    double mine = std::max(1.0, std::min(12.0, std::floor(estimate(hand_of(view), 'S') + 0.2)));
    for (size_t i = 0; i < legal.size(); i++)
        if (legal[i].kind == Value::String && legal[i].text == "pass" && ours > 0 &&
            (their_calls >= 2 || they_stopped) && std::min(12.0, ours + mine) < theirs)
            return i;  // hopeless: the other team wins the auction whatever we call
    return closest(mine, legal);
}

static size_t choose_play(const Value &view, const std::vector<Value> &legal) {
    Trump trump = trump_of(view);
    long seat = view["seat"].integer();
    std::vector<Card> cards;
    for (const Value &action : legal) cards.push_back(card_of(action));
    bool partnership = view["game"].text == "partnership-blackout";
    bool want_tricks;
    if (partnership) {
        want_tricks = view["contract"]["kind"].text != "zero";
    } else {
        long bid = 0;
        for (const Value &each : view["bids"].items)
            if (each.items.at(0).integer() == seat) bid = each.items.at(1).integer();
        want_tricks = bid > view["tricks_won"].items.at(size_t(seat)).integer();
    }
    auto cheapest = [&](const std::vector<size_t> &among) {
        return *std::min_element(among.begin(), among.end(), [&](size_t a, size_t b) {
            return danger(cards[a], trump) < danger(cards[b], trump); });
    };
    auto dearest = [&](const std::vector<size_t> &among) {
        return *std::max_element(among.begin(), among.end(), [&](size_t a, size_t b) {
            return danger(cards[a], trump) < danger(cards[b], trump); });
    };
    const std::vector<Value> &trick = view["trick"].items;
    std::vector<size_t> all(cards.size());
    for (size_t i = 0; i < all.size(); i++) all[i] = i;
    if (trick.empty()) return want_tricks ? dearest(all) : cheapest(all);  // leading
    long winner_seat = -1;
    Card best{};
    for (const Value &played : trick) {
        Card card = card_of(played.items.at(1));
        if (winner_seat < 0 || beats(card, best, trump)) {
            best = card;
            winner_seat = played.items.at(0).integer();
        }
    }
    bool partner_holds = partnership && winner_seat % 2 == seat % 2;
    std::vector<size_t> winners, losers;
    for (size_t i : all) (beats(cards[i], best, trump) ? winners : losers).push_back(i);
    if (want_tricks && !partner_holds && !winners.empty()) return cheapest(winners);
    if (!losers.empty()) return want_tricks ? cheapest(losers) : dearest(losers);
    return cheapest(winners);  // every card wins: the least valuable
}

static size_t decide(const std::string &kind, const Value &view, const std::vector<Value> &legal) {
    if (kind == "bid") return closest(estimate(hand_of(view), trump_of(view)), legal);
    if (kind == "call") return choose_call(view, legal);
    if (kind == "play") return choose_play(view, legal);
    throw std::runtime_error("an act of an unknown kind " + kind);
}

static void reply(const std::string &text) {
    std::cout << text << '\n';
    std::cout.flush();  // without it the reply waits in the buffer, and the decision times out
}

int main() {
    std::ios::sync_with_stdio(false);
    std::cerr << NAME << ": ready" << std::endl;
    std::string line;
    while (std::getline(std::cin, line)) {  // false at end of input: the arena is done
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        Value message;
        try {
            message = Parser(line).parse();
        } catch (const std::exception &error) {
            std::cerr << NAME << ": not a JSON message: " << error.what() << std::endl;
            continue;
        }
        const std::string &type = message["type"].text;
        if (type == "hello") {
            reply("{\"id\":" + write(message["id"]) + ",\"name\":\"" + NAME + "\",\"protocol\":1}");
        } else if (type == "act") {
            const std::vector<Value> &legal = message["legal"].items;
            if (legal.empty()) continue;
            size_t choice = 0;
            try {
                choice = decide(message["kind"].text, message["view"], legal);
            } catch (const std::exception &error) {  // a bug in a decision must not cost the game
                std::cerr << NAME << ": " << error.what() << "; playing the first legal action" << std::endl;
            }
            reply("{\"id\":" + write(message["id"]) + ",\"action\":" + write(legal.at(choice)) + "}");
        } else if (type == "quit") {
            return 0;
        }  // every other message type: information we do not need
    }
    return 0;
}
