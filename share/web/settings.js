// SPDX-License-Identifier: GPL-3.0-or-later
// Settings: the box's own settings (Menu › Settings), changed through the box.
import { api } from "/app.js";

const $ = (id) => document.getElementById(id);
const fields = [
  ["momentum", "Momentum", "bool"], ["tap_tolerance", "Tap tolerance %", "number"], ["screen_dim_seconds", "Screen dim (s, 0 never)", "number"],
  ["footswitch", "Footswitch", ["start-stop", "tap"]], ["silent_practice", "Silent practice", "bool"], ["dark_gap", "Dark gap", "bool"],
];

async function save(key, value) {
  try {
    await api("PATCH", "/api/preferences", { [key]: value });
    $("prefs-error").textContent = "";
    $(`pref-${key}`).classList.remove("bad");
  } catch (e) { $("prefs-error").textContent = e.message; $(`pref-${key}`).classList.add("bad"); }
}

export const settingsPage = {
  async start() {
    const box = $("prefs");
    for (const [key, label, kind] of fields) {
      const l = document.createElement("label");
      l.textContent = label;
      const input = document.createElement(Array.isArray(kind) || kind === "bool" ? "select" : "input");
      input.id = `pref-${key}`;
      const options = kind === "bool" ? ["on", "off"] : Array.isArray(kind) ? kind : null;
      if (options) input.innerHTML = options.map((o) => `<option>${o}</option>`).join("");
      else input.type = "number";
      input.addEventListener("change", () => save(key, kind === "bool" ? input.value === "on" : kind === "number" ? Number(input.value) : input.value));
      l.appendChild(input);
      box.appendChild(l);
    }
    const rows = [["Sync source", "internal clock"], ["MIDI map", "not available on this box yet"], ["Ableton Link", "not available on this box yet"],
                  ["Coach calibration", "not available on this box yet"]];
    $("features").innerHTML = rows.map(([a, b]) => `<tr><td>${a}</td><td class="muted">${b}</td></tr>`).join("");
    await this.show();
  },
  async show() {
    const p = await api("GET", "/api/preferences");
    for (const [key, , kind] of fields) $(`pref-${key}`).value = kind === "bool" ? (p[key] ? "on" : "off") : p[key];
  },
};
