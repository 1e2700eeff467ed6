#ifndef COMETCAL_CLIBICAL_SHIM_H
#define COMETCAL_CLIBICAL_SHIM_H
#include <libical/ical.h>

// icalerrno is a macro over a per-thread function: expose it as plain functions.
static inline icalerrorenum cometcal_ical_errno(void) {
    return icalerrno;
}

static inline void cometcal_ical_clear_errno(void) {
    icalerrno = ICAL_NO_ERROR;
}

// icalparser_parse_string finds each line end with strchr over the rest of the text, once per
// 1 KB chunk it hands the parser: quadratic in the length of a line (a 16 MB inline ATTACH took
// 16 s). This line source looks only within the chunk asked for, so parsing is linear.
#include <string.h>

typedef struct {
    const char *text;
    size_t length;
    size_t position;
} cometcal_line_source;

static inline char *cometcal_next_chunk(char *buffer, size_t size, void *data) {
    cometcal_line_source *source = (cometcal_line_source *)data;
    if (size < 2 || source->position >= source->length) return NULL;
    size_t rest = source->length - source->position;
    size_t take = rest < size - 1 ? rest : size - 1;
    const char *start = source->text + source->position;
    const char *newline = memchr(start, '\n', take);
    if (newline != NULL) take = (size_t)(newline - start) + 1;
    memcpy(buffer, start, take);
    buffer[take] = '\0';
    source->position += take;
    return buffer;
}

static inline icalcomponent *cometcal_parse(const char *text, size_t length) {
    icalparser *parser = icalparser_new();
    if (parser == NULL) return NULL;
    cometcal_line_source source = { text, length, 0 };
    icalparser_set_gen_data(parser, &source);
    icalcomponent *root = icalparser_parse(parser, cometcal_next_chunk);
    icalparser_free(parser);
    return root;
}

#endif
