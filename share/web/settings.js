// SPDX-License-Identifier: GPL-3.0-or-later
// Settings: the box's own settings (Menu › Settings, Menu › Tone), each change sent to the
// box, checked there by the settings file's reader and shown at its field in the box's words;
// and the MIDI map, written here as a [midi.map] table and checked by the box's reader.
import { api } from "/app.js";
import { field as wire } from "/protocol.js";

const $ = (id) => document.getElementById(id);
// [key, label, kind, card]: kind "bool", "number", "text" or the choices.
const fields = [
  [wire.momentum, "Momentum", "bool", "prefs"], [wire.tapTolerance, "Tap tolerance %", "number", "prefs"],
  [wire.screenDimSeconds, "Screen dim (s, 0 never)", "number", "screen-prefs"], [wire.footswitch, "Footswitch", ["start-stop", "tap"], "screen-prefs"],
  [wire.silentPractice, "Silent practice", "bool", "prefs"], [wire.darkGap, "Dark gap", "bool", "prefs"],
  [wire.sync, "Sync source", ["internal", "midi", "link"], "sync-prefs"], [wire.linkStartStopSync, "Link start/stop sync", "bool", "sync-prefs"],
  [wire.toneNote, "Tone note (C4-B5)", "text", "tone-prefs"], [wire.toneA4, "Tone A4 (Hz)", "number", "tone-prefs"],
  [wire.toneTimbre, "Tone timbre", ["sine", "organ"], "tone-prefs"], [wire.toneVolume, "Tone volume %", "number", "tone-prefs"],
  // The speed trainer (song mode's fields); a window makes the coach gate it: earn the tempo.
  [wire.trainerStep, "Trainer step (BPM, 0 off)", "number", "trainer-prefs"], [wire.trainerBars, "Every (bars in the window)", "number", "trainer-prefs"],
  [wire.trainerWindowMs, "Window ± ms (0: plain trainer)", "number", "trainer-prefs"], [wire.trainerDownBars, "Step down after bars out (0 never)", "number", "trainer-prefs"],
];

async function save(key, value) {
  for (const el of document.querySelectorAll("#page-settings .bad")) el.classList.remove("bad");
  try {
    show(await api("PATCH", "/api/preferences", { [key]: value }));
    $("prefs-error").textContent = "";
  } catch (e) {
    $("prefs-error").textContent = e.message;
    const field = (e.data && e.data[wire.field]) || key;
    if ($(`pref-${field}`)) $(`pref-${field}`).classList.add("bad");
  }
}

function show(p) {
  for (const [key, , kind] of fields) if (document.activeElement !== $(`pref-${key}`)) $(`pref-${key}`).value = kind === "bool" ? (p[key] ? "on" : "off") : p[key];
}

const controls = ["tap", "start-stop", "footswitch", "tempo-up", "tempo-down", "next-section", "previous-section", "preset", "song"];
const option = (o, chosen) => `<option${o === chosen ? " selected" : ""}>${o}</option>`;

// One row per entry: message kind, number, channel (any or 1-16), control and its N.
function midiRow(message = "note 36", control = "tap") {
  const [kind, number, , channel] = message.split(" ");
  const [name, n] = control.split(" ");
  const tr = document.createElement("tr");
  tr.innerHTML = `<td data-label="Message"><select data-key="kind">${["note", "cc", "program"].map((o) => option(o, kind)).join("")}</select></td>`
    + `<td data-label="Number"><input data-key="number" inputmode="numeric" value="${Number(number) || 0}"></td>`
    + `<td data-label="Channel"><select data-key="channel">${["any", ...Array.from({ length: 16 }, (_, i) => String(i + 1))].map((o) => option(o, channel || "any")).join("")}</select></td>`
    + `<td data-label="Control"><select data-key="control">${controls.map((o) => option(o, name)).join("")}</select></td>`
    + `<td data-label="N"><input data-key="n" inputmode="numeric" value="${n || ""}"></td>`
    + `<td class="actions"><button class="del" title="Remove">✕</button></td>`;
  const n$ = tr.querySelector("[data-key=n]"), c$ = tr.querySelector("[data-key=control]");
  const needsN = () => { n$.disabled = !["preset", "song"].includes(c$.value); if (!n$.disabled && !n$.value) n$.value = "1"; };
  c$.addEventListener("change", needsN);
  needsN();
  tr.querySelector(".del").addEventListener("click", () => tr.remove());
  $("midi-map").appendChild(tr);
}

// The table as the [midi.map] TOML the box reads: row i on line i + 2, so the box's error line marks the row.
function midiTOML() {
  const lines = ["[midi.map]"];
  for (const tr of $("midi-map").children) {
    const v = (key) => tr.querySelector(`[data-key=${key}]`).value.trim();
    const key = `${v("kind")} ${v("number")}` + (v("channel") === "any" ? "" : ` ch ${v("channel")}`);
    const control = v("control") + (["preset", "song"].includes(v("control")) ? ` ${v("n")}` : "");
    lines.push(`${JSON.stringify(key)} = ${JSON.stringify(control)}`);
  }
  return lines.join("\n") + "\n";
}

function showMIDI(answer) {
  $("midi-map").innerHTML = "";
  for (const entry of answer[wire.map]) midiRow(entry[wire.message], entry[wire.control]);
  $("midi-source").textContent = answer[wire.source] === "box"
    ? "Edited here and kept by the box with its settings, in place of the configuration file's [midi.map]."
    : "The configuration file's [midi.map] (/etc/tactus/config.toml). Saving here keeps your map on the box in its place.";
  $("midi-reset").disabled = answer[wire.source] !== "box";
}

async function saveMIDI(toml) {
  for (const el of document.querySelectorAll("#midi-map .bad")) el.classList.remove("bad");
  const error = $("midi-error");
  try {
    showMIDI(await api("PUT", "/api/midi-map", { [wire.toml]: toml }));
    error.textContent = "saved";
    error.classList.add("ok");
  } catch (e) {
    error.classList.remove("ok");
    error.textContent = e.message;
    const row = e.data && e.data.line ? $("midi-map").children[e.data.line - 2] : null;
    if (row) for (const el of row.querySelectorAll("input, select")) el.classList.add("bad");
  }
}

// Menu › Coach › Calibrate from here: the box plays its clicks; the card follows until it is done.
function showCoach(c) {
  const stored = c.round_trip_ms === null ? "not calibrated yet" : `round trip ${c.round_trip_ms.toFixed(1)} ms`;
  $("coach-calibration").textContent = !c.input ? "The box has no coach input: set [coach] input in its configuration file."
    : c.calibrating ? "Calibrating: 16 clicks…" : `Stored: ${stored}.` + (c.last ? ` Last time: ${c.last}.` : "");
  $("coach-calibrate").disabled = !c.input || c.calibrating;
  if (c[wire.calibrating]) setTimeout(async () => showCoach(await api("GET", "/api/coach")), 500);
}

async function calibrate() {
  $("coach-error").textContent = "";
  try { showCoach(await api("POST", "/api/coach/calibrate", {})); } catch (e) { $("coach-error").textContent = e.message; }
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
    $("midi-add").addEventListener("click", () => midiRow());
    $("midi-save").addEventListener("click", () => saveMIDI(midiTOML()));
    $("midi-reset").addEventListener("click", () => saveMIDI(null));
    $("coach-calibrate").addEventListener("click", calibrate);
    await this.show();
  },
  async show() {
    show(await api("GET", "/api/preferences"));
    showMIDI(await api("GET", "/api/midi-map"));
    showCoach(await api("GET", "/api/coach"));
  },
};
