// SPDX-License-Identifier: GPL-3.0-or-later
// The companion's shell: the API, the live socket with its clock map, the pages.
import { playPage } from "/play.js";
import { songsPage } from "/songs.js";
import { soundsPage } from "/sounds.js";
import { practicePage } from "/practice.js";
import { settingsPage } from "/settings.js";

export async function api(method, path, body, type = "application/json") {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = type;
    options.body = type === "application/json" ? JSON.stringify(body) : body;
  }
  const response = await fetch(path, options);
  if (response.status === 401) { location.href = "/pair"; throw new Error("not paired"); }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) { const e = new Error(data.error || `HTTP ${response.status}`); e.status = response.status; e.data = data; throw e; }
  return data;
}

// The box's CLOCK_MONOTONIC in ms minus performance.now(): from pings, the one with the
// shortest round trip wins (its midpoint is the closest to the box's reading).
export const clock = { offset: null, rtt: Infinity, toPage(ns) { return ns / 1e6 - this.offset; }, toBox(ms) { return (ms + this.offset) * 1e6; } };
window.tactusClock = clock;
const listeners = { state: [], beat: [] };
export function on(type, f) { listeners[type].push(f); }
export let state = null;
const status = document.getElementById("status");

function connect() {
  const socket = new WebSocket(`ws://${location.host}/ws`);
  const sent = new Map();
  let timer = null, id = 0;
  const ping = () => { id += 1; sent.set(id, performance.now()); socket.send(JSON.stringify({ type: "ping", id })); };
  socket.onopen = () => { status.textContent = "live"; for (let i = 0; i < 8; i++) setTimeout(ping, i * 60); timer = setInterval(ping, 2000); };
  socket.onclose = () => { status.textContent = "reconnecting…"; clearInterval(timer); setTimeout(connect, 1500); };
  socket.onmessage = (event) => {
    const m = JSON.parse(event.data);
    if (m.type === "pong") {
      const t0 = sent.get(m.id), t1 = performance.now();
      sent.delete(m.id);
      if (t0 === undefined) return;
      const rtt = t1 - t0;
      // A fresh sample replaces an old best after a while, so a drifting clock is followed.
      if (rtt <= clock.rtt * 1.5 || clock.offset === null) { clock.rtt = Math.min(rtt, clock.rtt * 1.5); clock.offset = m.ns / 1e6 - (t0 + t1) / 2; }
    } else if (m.type === "state") {
      state = m; for (const f of listeners.state) f(m);
    } else if (m.type === "beat") {
      for (const f of listeners.beat) f(m);
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
api("GET", "/api/state").then((s) => { state = s; for (const f of listeners.state) f(s); route(); connect(); }).catch(() => {});
