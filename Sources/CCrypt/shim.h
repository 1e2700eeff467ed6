#ifndef COMETCAL_CCRYPT_SHIM_H
#define COMETCAL_CCRYPT_SHIM_H
// libxcrypt: bcrypt ($2b$) hashing for the CalDAV password file.
#include <crypt.h>
#endif
