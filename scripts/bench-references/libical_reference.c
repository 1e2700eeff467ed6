/* The libical reference of scripts/bench: how long libical itself takes to parse a whole
 * iCalendar file (icalparser_parse_string) and to serialize the parsed tree again
 * (icalcomponent_as_ical_string_r). Reading the file is outside the clock.
 *
 * usage: libical_reference FILE [ROUNDS]
 * prints one JSON object: {"parse": [seconds...], "serialize": [seconds...], "events": n, "bytes": n}
 */
#include <libical/ical.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *read_file(const char *path, long *size) {
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    fseek(file, 0, SEEK_END);
    *size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *text = malloc((size_t)*size + 1);
    if (!text || fread(text, 1, (size_t)*size, file) != (size_t)*size) { fclose(file); free(text); return NULL; }
    text[*size] = '\0';
    fclose(file);
    return text;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s FILE [ROUNDS]\n", argv[0]); return 64; }
    int rounds = argc > 2 ? atoi(argv[2]) : 1;
    if (rounds < 1) rounds = 1;
    long size = 0;
    char *text = read_file(argv[1], &size);
    if (!text) { fprintf(stderr, "libical_reference: cannot read %s\n", argv[1]); return 66; }
    printf("{\"bytes\": %ld, \"parse\": [", size);
    int events = 0;
    double *serialize = calloc((size_t)rounds, sizeof(double));
    for (int round = 0; round < rounds; round++) {
        double started = now();
        icalcomponent *root = icalparser_parse_string(text);
        double parsed = now();
        if (!root) { fprintf(stderr, "libical_reference: libical parsed nothing\n"); return 65; }
        char *again = icalcomponent_as_ical_string_r(root);
        serialize[round] = now() - parsed;
        events = icalcomponent_count_components(root, ICAL_VEVENT_COMPONENT);
        free(again);
        icalcomponent_free(root);
        printf("%s%.6f", round ? ", " : "", parsed - started);
    }
    printf("], \"serialize\": [");
    for (int round = 0; round < rounds; round++) printf("%s%.6f", round ? ", " : "", serialize[round]);
    printf("], \"events\": %d}\n", events);
    free(serialize);
    free(text);
    return 0;
}
