// SPDX-License-Identifier: GPL-3.0-or-later
// Settings: the box's own settings (Menu › Settings, Menu › Tone), each change sent to the
// box, checked there by the settings file's reader and shown at its field in the box's words.
import { api } from "/app.js";

const $ = (id) => document.getElementById(id);
// [key, label, kind, card]: kind "bool", "number", "text" or the choices.
const fields = [
  ["momentum", "Momentum", "bool", "prefs"], ["tap_tolerance", "Tap tolerance %", "number", "prefs"],
  ["screen_dim_seconds", "Screen dim (s, 0 never)", "number", "prefs"], ["footswitch", "Footswitch", ["start-stop", "tap"], "prefs"],
  ["silent_practice", "Silent practice", "bool", "prefs"], ["dark_gap", "Dark gap", "bool", "prefs"],
  ["sync", "Sync source", ["internal", "link"], "sync-prefs"], ["link_start_stop_sync", "Link start/stop sync", "bool", "sync-prefs"],
  ["tone_note", "Tone note (C4-B5)", "text", "tone-prefs"], ["tone_a4", "Tone A4 (Hz)", "number", "tone-prefs"],
  ["tone_timbre", "Tone timbre", ["sine", "organ"], "tone-prefs"], ["tone_volume", "Tone volume %", "number", "tone-prefs"],
];

async function save(key, value) {
  for (const el of document.querySelectorAll("#page-settings .bad")) el.classList.remove("bad");
  try {
    show(await api("PATCH", "/api/preferences", { [key]: value }));
    $("prefs-error").textContent = "";
  } catch (e) {
    $("prefs-error").textContent = e.message;
    const field = (e.data && e.data.field) || key;
    if ($(`pref-${field}`)) $(`pref-${field}`).classList.add("bad");
  }
}

function show(p) {
  for (const [key, , kind] of fields) if (document.activeElement !== $(`pref-${key}`)) $(`pref-${key}`).value = kind === "bool" ? (p[key] ? "on" : "off") : p[key];
}

export const settingsPage = {
  async start() {
    for (const [key, label, kind, card] of fields) {
      const l = document.createElement("label");
      l.textContent = label;
      const input = document.createElement(Array.isArray(kind) || kind === "bool" ? "select" : "input");
      input.id = `pref-${key}`;
      const options = kind === "bool" ? ["on", "off"] : Array.isArray(kind) ? kind : null;
      if (options) input.innerHTML = options.map((o) => `<option>${o}</option>`).join("");
      else input.type = kind;
      input.addEventListener("change", () => save(key, kind === "bool" ? input.value === "on" : kind === "number" ? Number(input.value) : input.value));
      l.appendChild(input);
      $(card).appendChild(l);
    }
    const rows = [["MIDI map", "not on this box's version yet"], ["Coach calibration", "not on this box's version yet"]];
    $("features").innerHTML = rows.map(([a, b]) => `<tr><td>${a}</td><td class="muted">${b}</td></tr>`).join("");
    await this.show();
  },
  async show() { show(await api("GET", "/api/preferences")); },
};
