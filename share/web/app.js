// SPDX-License-Identifier: GPL-3.0-or-later
// The companion's shell: the API, the live socket with its clock map, the pages.
import { playPage } from "/play.js";
import { songsPage } from "/songs.js";
import { soundsPage } from "/sounds.js";
import { practicePage } from "/practice.js";
import { settingsPage } from "/settings.js";
import { event, field } from "/protocol.js";

// The ETag of each resource as last read or written (`/api/songs`, `/api/state`): a write
// sends it as If-Match, so a change someone else made in between is answered 412, not lost.
export const etags = {};
const resource = (path) => (path === "/api/transport" || path === "/api/tap" ? "/api/state" : path);

export async function api(method, path, body, type = "application/json", { ifMatch = false } = {}) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = type;
    options.body = type === "application/json" ? JSON.stringify(body) : body;
  }
  if (ifMatch && etags[resource(path)]) options.headers["If-Match"] = etags[resource(path)];
  const response = await fetch(path, options);
  if (response.status === 401) { location.href = "/pair"; throw new Error("not paired"); }
  const etag = response.headers.get("ETag");
  // A 412 carries the version there is now (with what it holds): the page shows theirs, and
  // the user's next write is checked against that.
  if (etag && (response.ok || response.status === 412)) etags[resource(path)] = etag;
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const e = new Error(data[field.error] || `HTTP ${response.status}`);
    e.status = response.status;
    e.data = data;
    e.stale = response.status === 412;
    throw e;
  }
  return data;
}

// The box's message without a file and line in front ("songs.toml:54: "): the page says where.
export function words(message) {
  return String(message).replace(/^[^\s:]+\.toml:\d+(:\d+)?: /, "").replace(/^(song(\[\d+\])?\.section(\[\d+\])?\.|song(\[\d+\])?\.|setlist\.)/, "").replace(/\[\[song\]\]/g, "song").replace(/\[\[song\.section\]\]/g, "section");
}

// The box's CLOCK_MONOTONIC in ms minus performance.now(), from pings over the socket, by
// NTP's rule: the ping with the shortest round trip wins (its midpoint is the closest to the
// box's reading; the error is at most half that round trip). A burst of pings when the socket
// opens (`synced` after it), a few more every 10 s; the best of the last minute counts, so a
// clock that drifts from the box's (a phone's quartz) is followed.
export const clock = {
  offset: null, rtt: Infinity, synced: false, samples: [],
  toPage(ns) { return ns / 1e6 - this.offset; },
  toBox(ms) { return (ms + this.offset) * 1e6; },
  add(t0, t1, boxNs) {
    this.samples.push({ at: t1, rtt: t1 - t0, offset: boxNs / 1e6 - (t0 + t1) / 2 });
    this.samples = this.samples.filter((s) => s.at >= t1 - 60000);
    const best = this.samples.reduce((a, b) => (b.rtt < a.rtt ? b : a));
    this.offset = best.offset;
    this.rtt = best.rtt;
  },
};
window.tactusClock = clock;
const listeners = { [event.state]: [], [event.beat]: [], [event.beats]: [] };
export function on(type, f) { listeners[type].push(f); }
export let state = null;
const status = document.getElementById("status");

function connect() {
  const socket = new WebSocket(`ws://${location.host}/ws`);
  const sent = new Map();
  let timer = null, id = 0;
  // One ping at a time, 40 ms apart: pings that queue behind each other only measure the queue.
  const burst = (count, then) => {
    if (socket.readyState !== WebSocket.OPEN) return;
    id += 1;
    sent.set(id, performance.now());
    socket.send(JSON.stringify({ [field.type]: event.ping, [field.id]: id }));
    if (count > 1) setTimeout(() => burst(count - 1, then), 40); else if (then) setTimeout(then, 200);
  };
  socket.onopen = () => {
    status.textContent = "live";
    clock.synced = false;
    const first = () => { if (clock.offset !== null) clock.synced = true; else burst(12, first); };
    burst(12, first);
    timer = setInterval(() => burst(4), 10000);
  };
  socket.onclose = () => { status.textContent = "reconnecting…"; clearInterval(timer); setTimeout(connect, 1500); };
  socket.onmessage = (message) => {
    const m = JSON.parse(message.data);
    const type = m[field.type];
    if (type === event.pong) {
      const t1 = performance.now(), t0 = sent.get(m[field.id]);
      sent.delete(m[field.id]);
      if (t0 !== undefined) clock.add(t0, t1, m[field.ns]);
    } else if (type === event.state) {
      state = m; for (const f of listeners[event.state]) f(m);
    } else if (type === event.beat || type === event.beats) {
      for (const f of listeners[type]) f(m);
    }
  };
}

const pages = { play: playPage, songs: songsPage, sounds: soundsPage, practice: practicePage, settings: settingsPage };
const started = new Set();
function route() {
  const name = (location.hash || "#play").slice(1);
  const page = pages[name] ? name : "play";
  for (const key of Object.keys(pages)) {
    document.getElementById(`page-${key}`).classList.toggle("on", key === page);
    document.querySelector(`nav a[href="#${key}"]`).classList.toggle("on", key === page);
  }
  if (!started.has(page)) { started.add(page); pages[page].start(); } else if (pages[page].show) pages[page].show();
}
window.addEventListener("hashchange", route);
api("GET", "/api/state").then((s) => { state = s; for (const f of listeners[event.state]) f(s); route(); connect(); }).catch(() => {});
