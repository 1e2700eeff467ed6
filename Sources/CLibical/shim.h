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

#endif
