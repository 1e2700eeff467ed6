#ifndef COMETCAL_CLIBPQ_SHIM_H
#define COMETCAL_CLIBPQ_SHIM_H
// Debian's libpq-dev puts the client header under postgresql/ (pkg-config libpq adds that folder).
#include <libpq-fe.h>
#endif
