// SPDX-License-Identifier: GPL-3.0-or-later
// The C interface of include/tactus_link.h over ableton::Link (written for Tactus; Link itself
// comes from Debian's ableton-link-dev headers, GPL-2.0-or-later).
#include "tactus_link.h"

#include <ableton/Link.hpp>
#include <chrono>
#include <mutex>
#include <new>
#include <optional>

using std::chrono::microseconds;

struct tactus_link {
    explicit tactus_link(double bpm) : link(bpm) {}
    ableton::Link link;
};

struct tactus_link_state {
    // SessionState has no default constructor; emplace copies a captured one in place, with
    // no allocation, so capturing on the render thread stays realtime-safe.
    std::optional<ableton::Link::SessionState> value;
};

extern "C" {

tactus_link *tactus_link_create(double bpm) { return new (std::nothrow) tactus_link(bpm); }
void tactus_link_destroy(tactus_link *link) { delete link; }
void tactus_link_enable(tactus_link *link, bool enabled) { link->link.enable(enabled); }
bool tactus_link_is_enabled(const tactus_link *link) { return link->link.isEnabled(); }
void tactus_link_enable_start_stop_sync(tactus_link *link, bool enabled) { link->link.enableStartStopSync(enabled); }
bool tactus_link_is_start_stop_sync_enabled(const tactus_link *link) { return link->link.isStartStopSyncEnabled(); }
uint64_t tactus_link_peers(const tactus_link *link) { return link->link.numPeers(); }

void tactus_link_on_peers(tactus_link *link, tactus_link_peers_callback callback, void *context) {
    if (callback) link->link.setNumPeersCallback([=](std::size_t peers) { callback(peers, context); });
    else link->link.setNumPeersCallback([](std::size_t) {});
}

void tactus_link_on_tempo(tactus_link *link, tactus_link_tempo_callback callback, void *context) {
    if (callback) link->link.setTempoCallback([=](double bpm) { callback(bpm, context); });
    else link->link.setTempoCallback([](double) {});
}

void tactus_link_on_start_stop(tactus_link *link, tactus_link_start_stop_callback callback, void *context) {
    if (callback) link->link.setStartStopCallback([=](bool playing) { callback(playing, context); });
    else link->link.setStartStopCallback([](bool) {});
}

int64_t tactus_link_clock_micros(const tactus_link *link) { return link->link.clock().micros().count(); }

tactus_link_state *tactus_link_state_create(void) { return new (std::nothrow) tactus_link_state(); }
void tactus_link_state_destroy(tactus_link_state *state) { delete state; }

void tactus_link_capture_audio_state(const tactus_link *link, tactus_link_state *state) {
    state->value.emplace(link->link.captureAudioSessionState());
}
void tactus_link_commit_audio_state(tactus_link *link, const tactus_link_state *state) {
    if (state->value) link->link.commitAudioSessionState(*state->value);
}
void tactus_link_capture_app_state(const tactus_link *link, tactus_link_state *state) {
    state->value.emplace(link->link.captureAppSessionState());
}
void tactus_link_commit_app_state(tactus_link *link, const tactus_link_state *state) {
    if (state->value) link->link.commitAppSessionState(*state->value);
}

bool tactus_link_state_is_valid(const tactus_link_state *state) { return state->value.has_value(); }
double tactus_link_state_tempo(const tactus_link_state *state) { return state->value->tempo(); }
void tactus_link_state_set_tempo(tactus_link_state *state, double bpm, int64_t at) {
    state->value->setTempo(bpm, microseconds(at));
}
double tactus_link_state_beat_at_time(const tactus_link_state *state, int64_t at, double quantum) {
    return state->value->beatAtTime(microseconds(at), quantum);
}
double tactus_link_state_phase_at_time(const tactus_link_state *state, int64_t at, double quantum) {
    return state->value->phaseAtTime(microseconds(at), quantum);
}
int64_t tactus_link_state_time_at_beat(const tactus_link_state *state, double beat, double quantum) {
    return state->value->timeAtBeat(beat, quantum).count();
}
void tactus_link_state_request_beat_at_time(tactus_link_state *state, double beat, int64_t at, double quantum) {
    state->value->requestBeatAtTime(beat, microseconds(at), quantum);
}
void tactus_link_state_force_beat_at_time(tactus_link_state *state, double beat, int64_t at, double quantum) {
    state->value->forceBeatAtTime(beat, microseconds(at), quantum);
}
void tactus_link_state_set_playing(tactus_link_state *state, bool playing, int64_t at) {
    state->value->setIsPlaying(playing, microseconds(at));
}
bool tactus_link_state_is_playing(const tactus_link_state *state) { return state->value->isPlaying(); }
int64_t tactus_link_state_time_for_is_playing(const tactus_link_state *state) {
    return state->value->timeForIsPlaying().count();
}
void tactus_link_state_request_beat_at_start_playing_time(tactus_link_state *state, double beat, double quantum) {
    state->value->requestBeatAtStartPlayingTime(beat, quantum);
}
void tactus_link_state_set_playing_and_request_beat_at_time(tactus_link_state *state, bool playing, int64_t at,
                                                             double beat, double quantum) {
    state->value->setIsPlayingAndRequestBeatAtTime(playing, microseconds(at), beat, quantum);
}

}
