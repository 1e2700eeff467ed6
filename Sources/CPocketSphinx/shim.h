#ifndef COMETCAL_CPOCKETSPHINX_SHIM_H
#define COMETCAL_CPOCKETSPHINX_SHIM_H
// Debian's libpocketsphinx-dev and libsphinxbase-dev (pkg-config pocketsphinx adds the folders).
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/cmd_ln.h>

// cmd_ln_init is variadic, which Swift cannot call: the decoder's configuration is built here
// from the paths it needs, with pocketsphinx's own defaults for the rest. `logfn` is where the
// library's chatter goes ("/dev/null" to keep a command's output clean); NULL keeps stderr.
// `remove_noise` is "yes" or "no" (pocketsphinx's -remove_noise, its spectral noise subtraction).
static inline cmd_ln_t *cometcal_ps_config(const char *hmm, const char *lm, const char *dict, const char *logfn, const char *remove_noise) {
    if (logfn != NULL) {
        return cmd_ln_init(NULL, ps_args(), TRUE, "-hmm", hmm, "-lm", lm, "-dict", dict, "-logfn", logfn, "-remove_noise", remove_noise, NULL);
    }
    return cmd_ln_init(NULL, ps_args(), TRUE, "-hmm", hmm, "-lm", lm, "-dict", dict, "-remove_noise", remove_noise, NULL);
}

// The linear probability of a log-domain score (ps_seg_prob's posterior), through the decoder's
// own log base.
static inline double cometcal_ps_linear(ps_decoder_t *ps, int32 logprob) {
    return logmath_exp(ps_get_logmath(ps), logprob);
}
#endif
