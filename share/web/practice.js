// SPDX-License-Identifier: GPL-3.0-or-later
// Practice: from the box's practice log, drawn as SVG: minutes per day, the tempo reached per
// song over time, and the coach's figures for the sessions it heard.
import { api } from "/app.js";

const $ = (id) => document.getElementById(id);
const ns = "http://www.w3.org/2000/svg";
const el = (name, attrs, text) => { const e = document.createElementNS(ns, name); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); if (text !== undefined) e.textContent = text; return e; };

function bars(svg, days, minutes) {
  svg.innerHTML = "";
  const width = 940, height = 220, left = 40, bottom = 30;
  const top = Math.max(10, ...minutes);
  const step = (width - left) / Math.max(days.length, 1);
  svg.appendChild(el("line", { x1: left, y1: height - bottom, x2: width, y2: height - bottom, stroke: "#2c333b" }));
  svg.appendChild(el("text", { x: 0, y: 14 }, `${Math.round(top)} min`));
  days.forEach((day, i) => {
    const h = (minutes[i] / top) * (height - bottom - 20);
    svg.appendChild(el("rect", { x: left + i * step + 2, y: height - bottom - h, width: Math.max(step - 4, 2), height: h, fill: "#49c26b" }));
    if (days.length <= 14 || i % Math.ceil(days.length / 14) === 0) svg.appendChild(el("text", { x: left + i * step, y: height - 10 }, day.slice(5)));
  });
}

const colours = ["#f2a33a", "#49c26b", "#5aa9e6", "#e66aa0", "#b48cf2", "#e6d35a", "#6ae6d5", "#ff6b6b"];

// One line per series over shared days: x by day, y by value; a dot per session.
function lines(svg, days, series, unit, low, high, marks = []) {
  svg.innerHTML = "";
  const width = 940, height = 200, left = 46, right = 150, bottom = 26, top = 10;
  const x = (day) => left + (days.length <= 1 ? 0 : (days.indexOf(day) / (days.length - 1)) * (width - left - right));
  const y = (v) => height - bottom - ((v - low) / (high - low || 1)) * (height - bottom - top);
  svg.appendChild(el("line", { x1: left, y1: height - bottom, x2: width - right, y2: height - bottom, stroke: "#2c333b" }));
  for (const v of [low, high, ...marks]) {
    svg.appendChild(el("line", { x1: left, y1: y(v), x2: width - right, y2: y(v), stroke: "#2c333b", "stroke-dasharray": v === low || v === high ? "" : "4 4" }));
    svg.appendChild(el("text", { x: 0, y: y(v) + 4 }, `${+v.toFixed(1)} ${unit}`));
  }
  days.forEach((day, i) => { if (days.length <= 8 || i % Math.ceil(days.length / 8) === 0) svg.appendChild(el("text", { x: x(day) - 14, y: height - 8 }, day.slice(5))); });
  series.forEach((s, i) => {
    const colour = colours[i % colours.length];
    const points = s.points.map((p) => `${x(p.day).toFixed(1)},${y(p.value).toFixed(1)}`);
    if (points.length > 1) svg.appendChild(el("polyline", { points: points.join(" "), fill: "none", stroke: colour, "stroke-width": 2, class: "series" }));
    for (const p of s.points) svg.appendChild(el("circle", { cx: x(p.day), cy: y(p.value), r: 3.5, fill: colour, class: "point" }, undefined));
    svg.appendChild(el("text", { x: width - right + 10, y: 16 + i * 16, fill: colour, style: `fill:${colour}` }, s.name.slice(0, 22)));
  });
}

// Per song, the fastest tempo of each day it was played.
function tempoSeries(sessions) {
  const bySong = new Map();
  for (const s of sessions) {
    if (!(s.bpm > 0)) continue;
    const name = s.song || "(no song)";
    if (!bySong.has(name)) bySong.set(name, new Map());
    const days = bySong.get(name);
    days.set(s.day, Math.max(days.get(s.day) || 0, s.bpm));
  }
  return [...bySong].map(([name, days]) => ({ name, points: [...days].sort().map(([day, value]) => ({ day, value })) }));
}

export const practicePage = {
  async start() { await this.show(); },
  async show() {
    const { minutes, sessions = [] } = await api("GET", "/api/practice");
    const days = [];
    const today = new Date();
    for (let i = 29; i >= 0; i--) { const d = new Date(today - i * 86400000); days.push(d.toISOString().slice(0, 10)); }
    for (const day of Object.keys(minutes)) if (!days.includes(day)) days.unshift(day);
    days.sort();
    const shown = days.slice(-30);
    bars($("minutes"), shown, shown.map((d) => minutes[d] || 0));
    const total = Object.values(minutes).reduce((a, b) => a + b, 0);
    $("practice-total").textContent = `${total.toFixed(1)} minutes in all, on ${Object.keys(minutes).length} days`;

    const sessionDays = [...new Set(sessions.map((s) => s.day))].sort();
    const tempo = tempoSeries(sessions);
    $("tempo-plot").style.display = tempo.length ? "" : "none";
    if (tempo.length) {
      const all = tempo.flatMap((s) => s.points.map((p) => p.value));
      lines($("tempo-plot"), sessionDays, tempo, "BPM", Math.floor(Math.min(...all) / 10) * 10, Math.ceil(Math.max(...all) / 10) * 10 || 10);
      $("tempo-note").textContent = `${sessions.length} session${sessions.length === 1 ? "" : "s"}; each point is the fastest tempo of a day.`;
    } else {
      $("tempo-note").textContent = "No sessions in the practice log yet: the box records each one from START to STOP.";
    }

    // The coach's figures, for the sessions that carry them: mean error and SD (ms), within 10 ms (%).
    const heard = sessions.filter((s) => s.hits !== undefined);
    $("coach-card").style.display = heard.length ? "" : "none";
    if (heard.length) {
      const coachDays = [...new Set(heard.map((s) => s.day))].sort();
      const per = (key) => coachDays.map((day) => {
        const today = heard.filter((s) => s.day === day);
        const hits = today.reduce((a, s) => a + s.hits, 0);
        return { day, value: today.reduce((a, s) => a + s[key] * s.hits, 0) / hits };
      });
      const series = [{ name: "mean (ms, + late)", points: per("mean_ms") }, { name: "SD (ms)", points: per("sd_ms") }];
      const all = series.flatMap((s) => s.points.map((p) => p.value));
      const reach = Math.max(10, Math.ceil(Math.max(...all.map(Math.abs)) / 5) * 5);
      lines($("coach-plot"), coachDays, series, "ms", Math.min(0, -reach), reach, [0]);
      const last = heard[heard.length - 1];
      $("coach-note").textContent = `${heard.length} session${heard.length === 1 ? "" : "s"} heard by the coach; the last: ${last.hits} hits, mean ${last.mean_ms > 0 ? "+" : ""}${last.mean_ms} ms, SD ${last.sd_ms} ms, within 10 ms ${last.within_10ms} %, within 25 ms ${last.within_25ms} %.`;
    }

    // The earned trainer's steps (the coach gated the tempo): each with the figures that made it, the latest 50.
    const steps = sessions.flatMap((s) => (s.trainer || []).map((t) => ({ ...t, day: s.day, song: s.song })));
    $("trainer-card").style.display = steps.length ? "" : "none";
    const body = $("trainer-steps").querySelector("tbody");
    body.textContent = "";
    for (const t of steps.slice(-50).reverse()) {
      const tr = document.createElement("tr");
      const cells = [t.day, t.song, t.from_bar, `${t.direction === "up" ? "↑" : "↓"} ${t.from_bpm} → ${t.to_bpm}`, t.bars, t.hits,
        `${t.mean_ms > 0 ? "+" : ""}${t.mean_ms}`, t.sd_ms];
      for (const c of cells) { const td = document.createElement("td"); td.textContent = String(c); tr.appendChild(td); }
      body.appendChild(tr);
    }
    $("trainer-note").textContent = steps.length ? `${steps.filter((t) => t.direction === "up").length} steps up, ${steps.filter((t) => t.direction === "down").length} down.` : "";
  },
};
