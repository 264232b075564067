// SPDX-License-Identifier: GPL-3.0-or-later
// Tactus's own C interface to Ableton Link (Debian's ableton-link-dev headers, GPL-2.0-or-later).
// Swift cannot import ableton::Link (its copy and move constructors are deleted), so this
// header is all Swift sees. Times are Link's host clock (CLOCK_MONOTONIC_RAW) in microseconds;
// tempos are Link beats (quarter notes by Tactus's convention) per minute.
#ifndef TACTUS_LINK_H
#define TACTUS_LINK_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One Link instance (a peer once enabled). Create and destroy on an application thread.
typedef struct tactus_link tactus_link;
/// A captured session state: allocate once (not on the render thread), then capture into it
/// as often as needed. Capturing, reading and changing it never allocate or lock.
typedef struct tactus_link_state tactus_link_state;

typedef void (*tactus_link_peers_callback)(uint64_t peers, void *context);
typedef void (*tactus_link_tempo_callback)(double bpm, void *context);
typedef void (*tactus_link_start_stop_callback)(bool playing, void *context);

// Lifecycle, enable, peers.
tactus_link *tactus_link_create(double bpm);
void tactus_link_destroy(tactus_link *link);
void tactus_link_enable(tactus_link *link, bool enabled);
bool tactus_link_is_enabled(const tactus_link *link);
void tactus_link_enable_start_stop_sync(tactus_link *link, bool enabled);
bool tactus_link_is_start_stop_sync_enabled(const tactus_link *link);
uint64_t tactus_link_peers(const tactus_link *link);

// Callbacks run on Link's own thread; NULL removes one. They must not block.
void tactus_link_on_peers(tactus_link *link, tactus_link_peers_callback callback, void *context);
void tactus_link_on_tempo(tactus_link *link, tactus_link_tempo_callback callback, void *context);
void tactus_link_on_start_stop(tactus_link *link, tactus_link_start_stop_callback callback, void *context);

/// Link's host clock now, in microseconds (realtime-safe).
int64_t tactus_link_clock_micros(const tactus_link *link);

// Session states.
tactus_link_state *tactus_link_state_create(void);
void tactus_link_state_destroy(tactus_link_state *state);
/// The audio thread's capture and commit: realtime-safe, one audio thread only.
void tactus_link_capture_audio_state(const tactus_link *link, tactus_link_state *state);
void tactus_link_commit_audio_state(tactus_link *link, const tactus_link_state *state);
/// An application thread's capture and commit (thread-safe, may lock). A commit is applied
/// asynchronously: a capture right after it may still show the old state.
void tactus_link_capture_app_state(const tactus_link *link, tactus_link_state *state);
void tactus_link_commit_app_state(tactus_link *link, const tactus_link_state *state);

/// False until something was captured into it; the readers below need a captured state.
bool tactus_link_state_is_valid(const tactus_link_state *state);
double tactus_link_state_tempo(const tactus_link_state *state);
void tactus_link_state_set_tempo(tactus_link_state *state, double bpm, int64_t at_micros);
double tactus_link_state_beat_at_time(const tactus_link_state *state, int64_t micros, double quantum);
double tactus_link_state_phase_at_time(const tactus_link_state *state, int64_t micros, double quantum);
int64_t tactus_link_state_time_at_beat(const tactus_link_state *state, double beat, double quantum);
void tactus_link_state_request_beat_at_time(tactus_link_state *state, double beat, int64_t micros, double quantum);
void tactus_link_state_force_beat_at_time(tactus_link_state *state, double beat, int64_t micros, double quantum);
void tactus_link_state_set_playing(tactus_link_state *state, bool playing, int64_t at_micros);
bool tactus_link_state_is_playing(const tactus_link_state *state);
int64_t tactus_link_state_time_for_is_playing(const tactus_link_state *state);
void tactus_link_state_request_beat_at_start_playing_time(tactus_link_state *state, double beat, double quantum);
void tactus_link_state_set_playing_and_request_beat_at_time(tactus_link_state *state, bool playing, int64_t at_micros,
                                                             double beat, double quantum);

#ifdef __cplusplus
}
#endif

#endif
