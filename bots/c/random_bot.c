/*
 * Random starter bot in C: a persistent process that answers every decision with a random
 * element of the arena's "legal" list (or, built with -DFIRST_LEGAL, always the first one).
 * It plays both "blackout" and "partnership-blackout" without knowing their rules.
 *
 * The parser is deliberately small: it walks the top-level JSON object of each line, skips every
 * value it does not need (nested objects such as "view" included), and keeps "type", "id",
 * "seed" and the raw text of each "legal" element, which it copies verbatim into the reply.
 * The generator (xorshift64*) is re-seeded from game_start's "seed" at the start of every game,
 * so replaying a tournament replays this bot's choices too.
 *
 * Build: make -C bots/c   Run: bots/c/random_bot   (see bots/c/README.md)
 */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef FIRST_LEGAL
#define BOT_NAME "first-c"
#else
#define BOT_NAME "random-c"
#endif

/* A slice of the input line: a JSON value's raw text. */
typedef struct {
    const char *start;
    size_t length;
} Span;

/* What one message holds that this bot uses. */
typedef struct {
    Span type;    /* the string's contents, without quotes */
    Span id;      /* raw integer text */
    Span seed;    /* raw integer text */
    Span *legal;  /* raw text of each element of "legal" */
    size_t legal_count;
    size_t legal_capacity;
} Message;

static const char *skip_space(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    return p;
}

/* Skips one JSON string starting at its opening quote; returns the character after the closing
 * quote, or NULL if the line ends first. */
static const char *skip_string(const char *p) {
    for (p++; *p; p++) {
        if (*p == '\\') {
            if (!*++p) return NULL;
        } else if (*p == '"') {
            return p + 1;
        }
    }
    return NULL;
}

/* Skips one JSON value of any kind; returns the character after it, or NULL if malformed. */
static const char *skip_value(const char *p) {
    p = skip_space(p);
    if (*p == '"') return skip_string(p);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        while (*p) {
            if (*p == '"') {
                p = skip_string(p);
                if (!p) return NULL;
                continue;
            }
            if (*p == '{' || *p == '[') depth++;
            if (*p == '}' || *p == ']') {
                if (--depth == 0) return p + 1;
            }
            p++;
        }
        return NULL;
    }
    /* number, true, false, null */
    const char *start = p;
    while (*p && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' && *p != '\r' &&
           *p != '\n')
        p++;
    return p == start ? NULL : p;
}

static int push_legal(Message *m, Span s) {
    if (m->legal_count == m->legal_capacity) {
        size_t capacity = m->legal_capacity ? 2 * m->legal_capacity : 64;
        Span *grown = realloc(m->legal, capacity * sizeof *grown);
        if (!grown) return -1;
        m->legal = grown;
        m->legal_capacity = capacity;
    }
    m->legal[m->legal_count++] = s;
    return 0;
}

/* Reads the elements of the array at p into m->legal; returns the character after it. */
static const char *parse_legal(const char *p, Message *m) {
    p = skip_space(p);
    if (*p != '[') return skip_value(p);
    p = skip_space(p + 1);
    if (*p == ']') return p + 1;
    for (;;) {
        const char *start = skip_space(p);
        const char *end = skip_value(start);
        if (!end) return NULL;
        if (push_legal(m, (Span){start, (size_t)(end - start)}) != 0) return NULL;
        p = skip_space(end);
        if (*p == ',') {
            p++;
        } else if (*p == ']') {
            return p + 1;
        } else {
            return NULL;
        }
    }
}

static int key_is(const char *key, size_t length, const char *name) {
    return strlen(name) == length && memcmp(key, name, length) == 0;
}

/* Parses the top-level object of one line; returns 0 on success. */
static int parse_message(const char *line, Message *m) {
    m->type = m->id = m->seed = (Span){NULL, 0};
    m->legal_count = 0;
    const char *p = skip_space(line);
    if (*p != '{') return -1;
    p = skip_space(p + 1);
    if (*p == '}') return 0;
    for (;;) {
        if (*p != '"') return -1;
        const char *key = p + 1;
        const char *after = skip_string(p);
        if (!after) return -1;
        size_t key_length = (size_t)(after - 1 - key);
        p = skip_space(after);
        if (*p != ':') return -1;
        const char *value = skip_space(p + 1);
        const char *end;
        if (key_is(key, key_length, "legal")) {
            end = parse_legal(value, m);
        } else {
            end = skip_value(value);
            if (end && key_is(key, key_length, "type") && *value == '"') {
                m->type = (Span){value + 1, (size_t)(end - value - 2)};
            } else if (end && key_is(key, key_length, "id")) {
                m->id = (Span){value, (size_t)(end - value)};
            } else if (end && key_is(key, key_length, "seed")) {
                m->seed = (Span){value, (size_t)(end - value)};
            }
        }
        if (!end) return -1;
        p = skip_space(end);
        if (*p == ',') {
            p = skip_space(p + 1);
        } else if (*p == '}') {
            return 0;
        } else {
            return -1;
        }
    }
}

/* xorshift64* seeded by hashing the seed's digits (FNV-1a), so any integer size works. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static void rng_seed(Span seed) {
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < seed.length; i++) {
        hash ^= (unsigned char)seed.start[i];
        hash *= 0x100000001b3ULL;
    }
    rng_state = hash ? hash : 0x9e3779b97f4a7c15ULL;
}

#ifndef FIRST_LEGAL
static uint64_t rng_next(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dULL;
}

/* A uniform index in [0, n), n > 0 (rejection sampling avoids modulo bias). */
static size_t rng_below(size_t n) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t r;
    do {
        r = rng_next();
    } while (r >= limit);
    return (size_t)(r % n);
}
#endif

static int type_is(const Message *m, const char *name) {
    return m->type.start && key_is(m->type.start, m->type.length, name);
}

int main(void) {
    Message m = {0};
    char *line = NULL;
    size_t capacity = 0;
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    while (getline(&line, &capacity, stdin) != -1) {
        if (parse_message(line, &m) != 0) {
            fprintf(stderr, BOT_NAME ": cannot parse: %.200s\n", line);
            continue;
        }
        if (type_is(&m, "act")) {
            if (!m.id.start || m.legal_count == 0) {
                fprintf(stderr, BOT_NAME ": act without id or legal actions\n");
                continue;
            }
#ifdef FIRST_LEGAL
            Span action = m.legal[0];
#else
            Span action = m.legal[rng_below(m.legal_count)];
#endif
            printf("{\"id\":%.*s,\"action\":%.*s}\n", (int)m.id.length, m.id.start,
                   (int)action.length, action.start);
            fflush(stdout);
        } else if (type_is(&m, "game_start")) {
            rng_seed(m.seed);
        } else if (type_is(&m, "hello")) {
            printf("{\"id\":%.*s,\"name\":\"" BOT_NAME "\",\"protocol\":1}\n",
                   (int)(m.id.start ? m.id.length : 1), m.id.start ? m.id.start : "0");
            fflush(stdout);
        } else if (type_is(&m, "quit")) {
            break;
        }
        /* deal_start, event, game_end and unknown types: information only. */
    }
    free(line);
    free(m.legal);
    return 0;
}
