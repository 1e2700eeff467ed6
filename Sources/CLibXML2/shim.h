#ifndef COMETCAL_CLIBXML2_SHIM_H
#define COMETCAL_CLIBXML2_SHIM_H
// Debian builds libxml2 with ICU, and its headers then include ICU's: those clash with the ICU
// inside Foundation in any Swift module that sees both ("UErrorCode has different definitions").
// Only a field at the end of xmlCharEncodingHandler depends on it, a struct we never open, so
// the headers are read without ICU.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <string.h>

// What one parse saw, kept in the parser context's _private field: the first error (libxml2
// reports the first one best; later ones are consequences), a DOCTYPE, and the element limits.
// A parse owns its context and this report, so requests on several threads never share them.
typedef struct {
    int has_error;
    int error_line;
    int error_code;
    char error_message[512];
    int saw_doctype;
    int max_depth;
    long max_elements;
    int depth;
    long elements;
    // 1: deeper than max_depth, 2: more than max_elements.
    int limit_exceeded;
} cometcal_xml_report;

static inline cometcal_xml_report *cometcal_xml_report_of(void *context) {
    return (cometcal_xml_report *)((xmlParserCtxtPtr)context)->_private;
}

// The structured error handler of one context: errors are recorded, never printed.
static inline void cometcal_xml_record_error(void *context, xmlErrorPtr error) {
    if (context == NULL || error == NULL) return;
    cometcal_xml_report *report = cometcal_xml_report_of(context);
    if (report == NULL || report->has_error || error->level == XML_ERR_WARNING) return;
    report->has_error = 1;
    report->error_line = error->line;
    report->error_code = error->code;
    if (error->message != NULL) {
        strncpy(report->error_message, error->message, sizeof(report->error_message) - 1);
        report->error_message[sizeof(report->error_message) - 1] = '\0';
    }
}

// For errors libxml2 raises outside a context (thread-local handlers): say nothing on stderr.
static inline void cometcal_xml_ignore_structured(void *data, xmlErrorPtr error) {
    (void)data; (void)error;
}

static inline void cometcal_xml_ignore_generic(void *data, const char *message, ...) {
    (void)data; (void)message;
}

// A DOCTYPE is refused as soon as its name is read: before any internal subset, entity
// declaration or external subset is looked at.
static inline void cometcal_xml_refuse_doctype(void *context, const xmlChar *name,
                                                const xmlChar *external_id, const xmlChar *system_id) {
    (void)name; (void)external_id; (void)system_id;
    cometcal_xml_report *report = cometcal_xml_report_of(context);
    if (report != NULL) report->saw_doctype = 1;
    xmlStopParser((xmlParserCtxtPtr)context);
}

// Depth and element count are checked while parsing, so an oversized tree is never built.
static inline void cometcal_xml_start_element(void *context, const xmlChar *localname, const xmlChar *prefix,
                                              const xmlChar *uri, int nb_namespaces, const xmlChar **namespaces,
                                              int nb_attributes, int nb_defaulted, const xmlChar **attributes) {
    cometcal_xml_report *report = cometcal_xml_report_of(context);
    if (report != NULL) {
        report->depth += 1;
        report->elements += 1;
        if (report->depth > report->max_depth) {
            report->limit_exceeded = 1;
            report->error_line = xmlSAX2GetLineNumber(context);
            xmlStopParser((xmlParserCtxtPtr)context);
            return;
        }
        if (report->elements > report->max_elements) {
            report->limit_exceeded = 2;
            report->error_line = xmlSAX2GetLineNumber(context);
            xmlStopParser((xmlParserCtxtPtr)context);
            return;
        }
    }
    xmlSAX2StartElementNs(context, localname, prefix, uri, nb_namespaces, namespaces,
                          nb_attributes, nb_defaulted, attributes);
}

static inline void cometcal_xml_end_element(void *context, const xmlChar *localname, const xmlChar *prefix,
                                            const xmlChar *uri) {
    cometcal_xml_report *report = cometcal_xml_report_of(context);
    if (report != NULL) report->depth -= 1;
    xmlSAX2EndElementNs(context, localname, prefix, uri);
}

// A parser context whose handlers are ours. Returns NULL when libxml2 cannot allocate one.
static inline xmlParserCtxtPtr cometcal_xml_new_context(cometcal_xml_report *report) {
    xmlParserCtxtPtr context = xmlNewParserCtxt();
    if (context == NULL) return NULL;
    context->_private = report;
    context->sax->serror = cometcal_xml_record_error;
    context->sax->internalSubset = cometcal_xml_refuse_doctype;
    context->sax->externalSubset = NULL;
    context->sax->startElementNs = cometcal_xml_start_element;
    context->sax->endElementNs = cometcal_xml_end_element;
    return context;
}

// Silences the calling thread's generic and structured error channels (thread-local in libxml2).
static inline void cometcal_xml_silence_thread(void) {
    xmlSetGenericErrorFunc(NULL, cometcal_xml_ignore_generic);
    xmlSetStructuredErrorFunc(NULL, cometcal_xml_ignore_structured);
}

#endif
