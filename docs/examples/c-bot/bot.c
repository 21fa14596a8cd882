/* A Cinch bot as a compiled program: protocol v1 over stdin/stdout, always
 * the first legal option. No JSON library: it only reads the few fields it
 * needs from the `legal` object of each `decide` request.
 * Build: cc -O2 -o bot bot.c   (before entering the bot: see docs/protocol.md) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The text just after "key": (spaces skipped), searched from `from`; NULL if absent. */
static const char *field(const char *from, const char *key) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *p = strstr(from, pat);
    if (!p) return NULL;
    p += strlen(pat);
    while (*p == ' ' || *p == ':') p++;
    return p;
}

/* Up to `max` two-character cards from a JSON array of strings at `p`. */
static int cards(const char *p, char out[][3], int max) {
    int n = 0;
    if (!p || *p != '[') return 0;
    for (p++; *p && *p != ']' && n < max; p++) {
        if (*p == '"') {
            out[n][0] = p[1]; out[n][1] = p[2]; out[n][2] = 0;
            n++;
            p += 3; /* on the closing quote */
        }
    }
    return n;
}

int main(void) {
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, stdin) > 0) {
        const char *type = field(line, "type");
        if (!type) continue;
        if (!strncmp(type, "\"hello\"", 7)) {
            printf("{\"type\":\"hello\",\"protocol\":1,\"name\":\"c-first\",\"version\":\"1\"}\n");
        } else if (!strncmp(type, "\"bye\"", 5)) {
            break;
        } else if (!strncmp(type, "\"decide\"", 8)) {
            long id = atol(field(line, "id"));
            const char *kind = field(line, "kind");
            const char *legal = field(line, "legal");
            printf("{\"type\":\"action\",\"id\":%ld,\"action\":", id);
            if (!strncmp(kind, "\"bid\"", 5)) {
                if (!strncmp(field(legal, "pass"), "true", 4))
                    printf("{\"type\":\"pass\"}");
                else
                    printf("{\"type\":\"bid\",\"amount\":%ld}", strtol(field(legal, "bids") + 1, NULL, 10));
            } else if (!strncmp(kind, "\"trump\"", 7)) {
                printf("{\"type\":\"trump\",\"suit\":\"H\"}");
            } else if (!strncmp(kind, "\"rob\"", 5)) {
                char from[64][3];
                int k = atoi(field(legal, "take"));
                cards(field(legal, "from"), from, 64);
                printf("{\"type\":\"rob\",\"take\":[");
                for (int i = 0; i < k; i++) printf("%s\"%s\"", i ? "," : "", from[i]);
                printf("]}");
            } else { /* play */
                char top[1][3], pool[16][3];
                cards(field(legal, "cards"), top, 1);
                int under = atoi(field(legal, "under"));
                int n = cards(field(legal, "under_from"), pool, 16);
                printf("{\"type\":\"play\",\"card\":\"%s\",\"under\":[", top[0]);
                for (int i = 0, done = 0; i < n && done < under; i++) {
                    if (strcmp(pool[i], top[0])) printf("%s\"%s\"", done++ ? "," : "", pool[i]);
                }
                printf("]}");
            }
            printf("}\n");
        }
        fflush(stdout);
    }
    free(line);
    return 0;
}
