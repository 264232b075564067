// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef TACTUS_CALSA_SHIM_H
#define TACTUS_CALSA_SHIM_H

#include <alsa/asoundlib.h>

/* snd_lib_error_handler_t is a variadic function pointer: Swift cannot implement one.
   LinuxHAL reports ALSA failures itself (with snd_strerror), so libasound's own stderr
   chatter is switched off here. */
static void tactus_alsa_quiet_handler(const char *file, int line, const char *function,
                                      int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
static inline int tactus_alsa_silence_errors(void) {
    return snd_lib_error_set_handler(tactus_alsa_quiet_handler);
}

#endif
