#ifndef COMETCAL_CPULSESIMPLE_SHIM_H
#define COMETCAL_CPULSESIMPLE_SHIM_H
// Debian's libpulse-dev: PulseAudio's simple API (pa_simple), blocking playback and recording on
// the default output and input, for --speak and chat --voice (CometVoice's AudioOutput, AudioInput).
#include <pulse/simple.h>
#include <pulse/error.h>
#endif
