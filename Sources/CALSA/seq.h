// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef TACTUS_CALSA_SEQ_H
#define TACTUS_CALSA_SEQ_H

/* The ALSA sequencer parts Swift cannot reach: snd_seq_event_t is a struct with a union
   and its setters are macros. These build and read events field by field, on the stack:
   nothing here allocates, so the MIDI clock thread may call tactus_seq_send. */

#include <alsa/asoundlib.h>
#include <string.h>

/* Sends one MIDI message (status byte and up to two data bytes) from `port` to its
   subscribers, direct (not queued): the caller chose the moment. Returns what
   snd_seq_event_output_direct returns (bytes written, or a negative errno); -EINVAL for a
   status the box does not send (SysEx). */
static inline int tactus_seq_send(snd_seq_t *seq, int port, unsigned char status, unsigned char d1,
                                  unsigned char d2) {
    snd_seq_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.source.port = (unsigned char)port;
    ev.dest.client = SND_SEQ_ADDRESS_SUBSCRIBERS;
    ev.dest.port = SND_SEQ_ADDRESS_UNKNOWN;
    ev.queue = SND_SEQ_QUEUE_DIRECT;
    ev.flags = SND_SEQ_TIME_STAMP_TICK | SND_SEQ_EVENT_LENGTH_FIXED;
    unsigned char channel = status & 0x0F;
    switch (status & 0xF0) {
    case 0x80: ev.type = SND_SEQ_EVENT_NOTEOFF; ev.data.note.channel = channel; ev.data.note.note = d1; ev.data.note.velocity = d2; break;
    case 0x90: ev.type = SND_SEQ_EVENT_NOTEON; ev.data.note.channel = channel; ev.data.note.note = d1; ev.data.note.velocity = d2; break;
    case 0xA0: ev.type = SND_SEQ_EVENT_KEYPRESS; ev.data.note.channel = channel; ev.data.note.note = d1; ev.data.note.velocity = d2; break;
    case 0xB0: ev.type = SND_SEQ_EVENT_CONTROLLER; ev.data.control.channel = channel; ev.data.control.param = d1; ev.data.control.value = d2; break;
    case 0xC0: ev.type = SND_SEQ_EVENT_PGMCHANGE; ev.data.control.channel = channel; ev.data.control.value = d1; break;
    case 0xD0: ev.type = SND_SEQ_EVENT_CHANPRESS; ev.data.control.channel = channel; ev.data.control.value = d1; break;
    case 0xE0: ev.type = SND_SEQ_EVENT_PITCHBEND; ev.data.control.channel = channel; ev.data.control.value = (int)(d1 | (d2 << 7)) - 8192; break;
    default:
        switch (status) {
        case 0xF8: ev.type = SND_SEQ_EVENT_CLOCK; break;
        case 0xFA: ev.type = SND_SEQ_EVENT_START; break;
        case 0xFB: ev.type = SND_SEQ_EVENT_CONTINUE; break;
        case 0xFC: ev.type = SND_SEQ_EVENT_STOP; break;
        case 0xFE: ev.type = SND_SEQ_EVENT_SENSING; break;
        case 0xFF: ev.type = SND_SEQ_EVENT_RESET; break;
        case 0xF6: ev.type = SND_SEQ_EVENT_TUNE_REQUEST; break;
        case 0xF2: ev.type = SND_SEQ_EVENT_SONGPOS; ev.data.control.value = d1 | (d2 << 7); break;
        case 0xF3: ev.type = SND_SEQ_EVENT_SONGSEL; ev.data.control.value = d1; break;
        case 0xF1: ev.type = SND_SEQ_EVENT_QFRAME; ev.data.control.value = d1; break;
        default: return -EINVAL;
        }
    }
    return snd_seq_event_output_direct(seq, &ev);
}

/* What tactus_seq_read found. kind: 0 nothing the box reads, 1 a MIDI message (bytes,
   count), 2 a port appeared (addr), 3 a port went away (addr), 4 a SysEx (length). */
typedef struct {
    int kind;
    unsigned char bytes[3];
    int count;
    int source_client, source_port;
    int addr_client, addr_port;
    long long stamp_nanoseconds; /* the queue's real-time stamp, -1 when the event has none */
    long sysex_length;
} tactus_seq_input;

/* Reads one event (non-blocking handle): 1 with *out filled, 0 when none is waiting
   (-EAGAIN), or a negative errno (-ENOSPC: the kernel's input pool overflowed, events lost). */
static inline int tactus_seq_read(snd_seq_t *seq, tactus_seq_input *out) {
    snd_seq_event_t *ev = NULL;
    int result = snd_seq_event_input(seq, &ev);
    if (result == -EAGAIN) return 0;
    if (result < 0) return result;
    if (ev == NULL) return 0;
    memset(out, 0, sizeof *out);
    out->source_client = ev->source.client;
    out->source_port = ev->source.port;
    out->stamp_nanoseconds = -1;
    if ((ev->flags & SND_SEQ_TIME_STAMP_MASK) == SND_SEQ_TIME_STAMP_REAL)
        out->stamp_nanoseconds = (long long)ev->time.time.tv_sec * 1000000000LL + ev->time.time.tv_nsec;
    out->kind = 1;
    unsigned char ch = ev->data.note.channel & 0x0F;
    switch (ev->type) {
    case SND_SEQ_EVENT_NOTEON: out->bytes[0] = 0x90 | ch; out->bytes[1] = ev->data.note.note & 0x7F; out->bytes[2] = ev->data.note.velocity & 0x7F; out->count = 3; break;
    case SND_SEQ_EVENT_NOTEOFF: out->bytes[0] = 0x80 | ch; out->bytes[1] = ev->data.note.note & 0x7F; out->bytes[2] = ev->data.note.velocity & 0x7F; out->count = 3; break;
    case SND_SEQ_EVENT_KEYPRESS: out->bytes[0] = 0xA0 | ch; out->bytes[1] = ev->data.note.note & 0x7F; out->bytes[2] = ev->data.note.velocity & 0x7F; out->count = 3; break;
    case SND_SEQ_EVENT_CONTROLLER:
        out->bytes[0] = 0xB0 | (ev->data.control.channel & 0x0F); out->bytes[1] = ev->data.control.param & 0x7F;
        out->bytes[2] = ev->data.control.value & 0x7F; out->count = 3; break;
    case SND_SEQ_EVENT_PGMCHANGE: out->bytes[0] = 0xC0 | (ev->data.control.channel & 0x0F); out->bytes[1] = ev->data.control.value & 0x7F; out->count = 2; break;
    case SND_SEQ_EVENT_CHANPRESS: out->bytes[0] = 0xD0 | (ev->data.control.channel & 0x0F); out->bytes[1] = ev->data.control.value & 0x7F; out->count = 2; break;
    case SND_SEQ_EVENT_PITCHBEND: {
        int v = ev->data.control.value + 8192;
        out->bytes[0] = 0xE0 | (ev->data.control.channel & 0x0F); out->bytes[1] = v & 0x7F; out->bytes[2] = (v >> 7) & 0x7F; out->count = 3; break;
    }
    case SND_SEQ_EVENT_CLOCK: out->bytes[0] = 0xF8; out->count = 1; break;
    case SND_SEQ_EVENT_START: out->bytes[0] = 0xFA; out->count = 1; break;
    case SND_SEQ_EVENT_CONTINUE: out->bytes[0] = 0xFB; out->count = 1; break;
    case SND_SEQ_EVENT_STOP: out->bytes[0] = 0xFC; out->count = 1; break;
    case SND_SEQ_EVENT_SENSING: out->bytes[0] = 0xFE; out->count = 1; break;
    case SND_SEQ_EVENT_SONGPOS:
        out->bytes[0] = 0xF2; out->bytes[1] = ev->data.control.value & 0x7F; out->bytes[2] = (ev->data.control.value >> 7) & 0x7F; out->count = 3; break;
    case SND_SEQ_EVENT_SONGSEL: out->bytes[0] = 0xF3; out->bytes[1] = ev->data.control.value & 0x7F; out->count = 2; break;
    case SND_SEQ_EVENT_SYSEX: out->kind = 4; out->sysex_length = (long)ev->data.ext.len; break;
    case SND_SEQ_EVENT_PORT_START: out->kind = 2; out->addr_client = ev->data.addr.client; out->addr_port = ev->data.addr.port; break;
    case SND_SEQ_EVENT_PORT_EXIT: out->kind = 3; out->addr_client = ev->data.addr.client; out->addr_port = ev->data.addr.port; break;
    default: out->kind = 0; break;
    }
    return 1;
}

/* Starts `queue` (snd_seq_start_queue is a macro) and sends the request now. */
static inline int tactus_seq_start_queue(snd_seq_t *seq, int queue) {
    int result = snd_seq_control_queue(seq, queue, SND_SEQ_EVENT_START, 0, NULL);
    if (result < 0) return result;
    return snd_seq_drain_output(seq);
}

/* The queue's current real time in nanoseconds (its timestamps' clock), or a negative errno. */
static inline long long tactus_seq_queue_nanoseconds(snd_seq_t *seq, int queue) {
    snd_seq_queue_status_t *status;
    snd_seq_queue_status_alloca(&status);
    int result = snd_seq_get_queue_status(seq, queue, status);
    if (result < 0) return result;
    const snd_seq_real_time_t *t = snd_seq_queue_status_get_real_time(status);
    return (long long)t->tv_sec * 1000000000LL + t->tv_nsec;
}

/* Creates the box's port, readable and writable by subscription (anyone may aconnect it),
   stamping what arrives with `queue`'s real time. Returns the port number or a negative errno. */
static inline int tactus_seq_create_port(snd_seq_t *seq, const char *name, int queue) {
    snd_seq_port_info_t *info;
    snd_seq_port_info_alloca(&info);
    snd_seq_port_info_set_name(info, name);
    snd_seq_port_info_set_capability(info, SND_SEQ_PORT_CAP_READ | SND_SEQ_PORT_CAP_SUBS_READ |
                                               SND_SEQ_PORT_CAP_WRITE | SND_SEQ_PORT_CAP_SUBS_WRITE);
    snd_seq_port_info_set_type(info, SND_SEQ_PORT_TYPE_MIDI_GENERIC | SND_SEQ_PORT_TYPE_APPLICATION);
    if (queue >= 0) {
        snd_seq_port_info_set_timestamping(info, 1);
        snd_seq_port_info_set_timestamp_real(info, 1);
        snd_seq_port_info_set_timestamp_queue(info, queue);
    }
    int result = snd_seq_create_port(seq, info);
    if (result < 0) return result;
    return snd_seq_port_info_get_port(info);
}

/* One port of another client, as the box matches `[midi] out` against it. */
typedef struct {
    int client, port;
    unsigned int capability;
    int client_type; /* SND_SEQ_KERNEL_CLIENT or SND_SEQ_USER_CLIENT */
    char client_name[64];
    char port_name[64];
} tactus_seq_port;

/* Fills `out` with up to `capacity` ports of every client (one call lists them all);
   returns how many there are (may exceed capacity) or a negative errno. */
static inline int tactus_seq_list_ports(snd_seq_t *seq, tactus_seq_port *out, int capacity) {
    snd_seq_client_info_t *client;
    snd_seq_port_info_t *port;
    snd_seq_client_info_alloca(&client);
    snd_seq_port_info_alloca(&port);
    snd_seq_client_info_set_client(client, -1);
    int count = 0;
    while (snd_seq_query_next_client(seq, client) >= 0) {
        int id = snd_seq_client_info_get_client(client);
        snd_seq_port_info_set_client(port, id);
        snd_seq_port_info_set_port(port, -1);
        while (snd_seq_query_next_port(seq, port) >= 0) {
            if (count < capacity) {
                tactus_seq_port *p = &out[count];
                p->client = id;
                p->port = snd_seq_port_info_get_port(port);
                p->capability = snd_seq_port_info_get_capability(port);
                p->client_type = (int)snd_seq_client_info_get_type(client);
                snprintf(p->client_name, sizeof p->client_name, "%s", snd_seq_client_info_get_name(client));
                snprintf(p->port_name, sizeof p->port_name, "%s", snd_seq_port_info_get_name(port));
            }
            count++;
        }
    }
    return count;
}

#endif
