// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef TACTUS_CGPIOD_SHIM_H
#define TACTUS_CGPIOD_SHIM_H
/* libgpiod 1.6 (v1 API: Debian 12, Raspberry Pi OS bookworm) or libgpiod 2 (v2 API: Debian 13,
   trixie, bookworm-backports): whichever pkg-config finds. Package.swift picks the matching
   Swift backend in Sources/LinuxHAL/GPIO from the same pkg-config version. Only that folder
   uses this module. */
#include <gpiod.h>
#endif
