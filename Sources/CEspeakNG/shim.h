#ifndef COMETCAL_CESPEAKNG_SHIM_H
#define COMETCAL_CESPEAKNG_SHIM_H
// Debian's libespeak-ng-dev: the speech synthesizer behind --speak (CometVoice's Speaker). The
// library synthesizes into memory (AUDIO_OUTPUT_SYNCHRONOUS with a callback), which the espeak-ng
// command cannot do without a file or a pipe.
#include <stddef.h>
#include <espeak-ng/speak_lib.h>
#endif
