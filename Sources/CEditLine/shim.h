#ifndef COMETCAL_CEDITLINE_SHIM_H
#define COMETCAL_CEDITLINE_SHIM_H
// libedit's readline interface (Debian's libedit-dev): line editing and history for chat.
#include <stdio.h>
#include <editline/readline.h>

// rl_readline_name is a const char *: set from C so Swift need not keep a C string alive.
static inline void cometcal_editline_name(void) {
    rl_readline_name = "cometcal";
}

#endif
