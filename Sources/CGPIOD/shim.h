#ifndef TACTUS_CGPIOD_SHIM_H
#define TACTUS_CGPIOD_SHIM_H
/* libgpiod 1.6 (v1 API), as on Debian 12 and Raspberry Pi OS bookworm. Only
   Sources/LinuxHAL/GPIO uses it, so a v2 backend can be added there alone. */
#include <gpiod.h>
#endif
