// SPDX-License-Identifier: GPL-3.0-or-later
// Practice: from the box's practice log, drawn as SVG: minutes per day, the tempo reached per
// song over time, and the coach's figures for the sessions it heard. Each plot is drawn at the
// width of its card (a phone's too), everything inside its axes; an empty log says why.
import { api } from "/app.js";
import { field } from "/protocol.js";

const $ = (id) => document.getElementById(id);
const ns = "http://www.w3.org/2000/svg";
const el = (name, attrs, text) => { const e = document.createElementNS(ns, name); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); if (text !== undefined) e.textContent = text; return e; };
let last = null; // the log last drawn, drawn again when the window's width changes

// The plot's width in its own units: the card's inner width (px), so 11 px text stays 11 px.
function widthOf(svg, height) {
  const width = Math.max(280, Math.round(svg.parentElement.clientWidth - 2 * parseFloat(getComputedStyle(svg.parentElement).paddingLeft || "0")) || 900);
  svg.innerHTML = "";
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  return width;
}

// The day of a Date in local time (the box's practice log counts local days), YYYY-MM-DD.
const dayOf = (d) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;

function bars(svg, days, minutes) {
  const height = 220, left = 44, right = 8, bottom = 30, top = 12;
  const width = widthOf(svg, height);
  const most = Math.max(10, ...minutes);
  const inner = width - left - right;
  const step = inner / Math.max(days.length, 1);
  const gap = step > 8 ? 2 : 0.5;
  const axis = height - bottom;
  svg.appendChild(el("line", { x1: left, y1: axis, x2: width - right, y2: axis, stroke: "#2c333b" }));
  svg.appendChild(el("line", { x1: left, y1: top, x2: left, y2: axis, stroke: "#2c333b" }));
  svg.appendChild(el("text", { x: 0, y: top + 4 }, `${Math.round(most)} min`));
  svg.appendChild(el("text", { x: 0, y: axis }, "0"));
  const labels = Math.max(2, Math.floor(inner / 48));
  days.forEach((day, i) => {
    const h = (minutes[i] / most) * (axis - top);
    svg.appendChild(el("rect", { x: (left + i * step + gap).toFixed(1), y: (axis - h).toFixed(1), width: Math.max(step - 2 * gap, 1).toFixed(1), height: h.toFixed(1), fill: "#49c26b" }));
    // Labels spread evenly, and the last day (today) always, at the right end of the axis.
    const every = Math.ceil(days.length / labels);
    const last = i === days.length - 1;
    const lastX = width - right - 32;
    if (last || (i % every === 0 && left + i * step < lastX - 40)) {
      const x = last ? lastX : left + i * step;
      svg.appendChild(el("text", { x: x.toFixed(1), y: height - 10 }, day.slice(5)));
    }
  });
}

const colours = ["#f2a33a", "#49c26b", "#5aa9e6", "#e66aa0", "#b48cf2", "#e6d35a", "#6ae6d5", "#ff6b6b"];

// One line per series over shared days: x by day, y by value; a dot per session. The legend,
// a coloured mark and name per series, to the right, or below the plot when it is narrow.
function lines(svg, days, series, unit, low, high, marks = []) {
  const plotHeight = 200, left = 52, bottom = 26, top = 10;
  const probe = Math.max(280, svg.parentElement.clientWidth || 900);
  const below = probe < 560;
  const rows = below ? Math.ceil(series.length / 2) : 0;
  const height = plotHeight + rows * 18 + (below ? 6 : 0);
  const width = widthOf(svg, height);
  const right = below ? 10 : 160;
  const x = (day) => left + (days.length <= 1 ? (width - left - right) / 2 : (days.indexOf(day) / (days.length - 1)) * (width - left - right));
  const y = (v) => plotHeight - bottom - ((v - low) / (high - low || 1)) * (plotHeight - bottom - top);
  svg.appendChild(el("line", { x1: left, y1: plotHeight - bottom, x2: width - right, y2: plotHeight - bottom, stroke: "#2c333b" }));
  for (const v of [low, high, ...marks]) {
    svg.appendChild(el("line", { x1: left, y1: y(v), x2: width - right, y2: y(v), stroke: "#2c333b", "stroke-dasharray": v === low || v === high ? "" : "4 4" }));
    svg.appendChild(el("text", { x: 0, y: y(v) + 4 }, `${+v.toFixed(1)} ${unit}`));
  }
  const labels = Math.max(2, Math.floor((width - left - right) / 56));
  days.forEach((day, i) => {
    if (days.length <= labels || i % Math.ceil(days.length / labels) === 0) {
      svg.appendChild(el("text", { x: Math.max(left, Math.min(x(day) - 14, width - right - 30)).toFixed(1), y: plotHeight - 8 }, day.slice(5)));
    }
  });
  series.forEach((s, i) => {
    const colour = colours[i % colours.length];
    const points = s.points.map((p) => `${x(p.day).toFixed(1)},${y(p.value).toFixed(1)}`);
    if (points.length > 1) svg.appendChild(el("polyline", { points: points.join(" "), fill: "none", stroke: colour, "stroke-width": 2, class: "series" }));
    for (const p of s.points) svg.appendChild(el("circle", { cx: x(p.day).toFixed(1), cy: y(p.value).toFixed(1), r: 3.5, fill: colour, class: "point" }));
    const lx = below ? left + (i % 2) * ((width - left) / 2) : width - right + 10;
    const ly = below ? plotHeight + 12 + Math.floor(i / 2) * 18 : 16 + i * 18;
    const key = el("g", { class: "legend" });
    key.appendChild(el("rect", { x: lx, y: ly - 8, width: 14, height: 4, rx: 1, fill: colour }));
    key.appendChild(el("text", { x: lx + 20, y: ly, fill: colour }, s.name.slice(0, 22)));
    svg.appendChild(key);
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

// Why there is nothing to draw: the box keeps no state, or nothing was played yet.
function why(kept, minutes, sessions) {
  if (kept === false) {
    return "This box keeps no practice log: it runs without a state folder (`tactus simulate` without --state; "
      + "`make run` keeps one in .state/, or STATE=FOLDER), so nothing it plays is recorded.";
  }
  if (!Object.keys(minutes).length && !sessions.length) {
    return "No practice yet: the box records each session from START to STOP (at least a few seconds of playing) and shows it here.";
  }
  return "";
}

function draw({ minutes = {}, sessions = [], kept }) {
  $("practice-why").textContent = why(kept, minutes, sessions);
  const days = [];
  const today = new Date();
  for (let i = 29; i >= 0; i--) days.push(dayOf(new Date(today.getFullYear(), today.getMonth(), today.getDate() - i)));
  for (const day of Object.keys(minutes)) if (!days.includes(day)) days.push(day);
  days.sort();
  const shown = days.slice(-30);
  bars($("minutes"), shown, shown.map((d) => minutes[d] || 0));
  const total = Object.values(minutes).reduce((a, b) => a + b, 0);
  $("practice-total").textContent = `${total.toFixed(1)} minutes in all, on ${Object.keys(minutes).length} days`;

  const sessionDays = [...new Set(sessions.map((s) => s.day))].sort();
  const tempo = tempoSeries(sessions);
  $("tempo-plot").classList.toggle("hidden", !tempo.length);
  if (tempo.length) {
    const all = tempo.flatMap((s) => s.points.map((p) => p.value));
    lines($("tempo-plot"), sessionDays, tempo, "BPM", Math.floor(Math.min(...all) / 10) * 10, Math.ceil(Math.max(...all) / 10) * 10 || 10);
    $("tempo-note").textContent = `${sessions.length} session${sessions.length === 1 ? "" : "s"}; each point is the fastest tempo of a day.`;
  } else {
    $("tempo-note").textContent = "No sessions in the practice log yet: the box records each one from START to STOP.";
  }

  // The coach's figures, for the sessions that carry them: mean error and SD (ms), within 10 ms (%).
  const heard = sessions.filter((s) => s.hits !== undefined);
  $("coach-card").classList.toggle("hidden", !heard.length);
  if (heard.length) {
    const coachDays = [...new Set(heard.map((s) => s.day))].sort();
    const per = (key) => coachDays.map((day) => {
      const those = heard.filter((s) => s.day === day);
      const hits = those.reduce((a, s) => a + s.hits, 0);
      return { day, value: those.reduce((a, s) => a + s[key] * s.hits, 0) / hits };
    });
    const series = [{ name: "mean (ms, + late)", points: per(field.meanMs) }, { name: "SD (ms)", points: per(field.sdMs) }];
    const all = series.flatMap((s) => s.points.map((p) => p.value));
    const reach = Math.max(10, Math.ceil(Math.max(...all.map(Math.abs)) / 5) * 5);
    lines($("coach-plot"), coachDays, series, "ms", Math.min(0, -reach), reach, [0]);
    const l = heard[heard.length - 1];
    $("coach-note").textContent = `${heard.length} session${heard.length === 1 ? "" : "s"} heard by the coach; the last: ${l.hits} hits, mean ${l.mean_ms > 0 ? "+" : ""}${l.mean_ms} ms, SD ${l.sd_ms} ms, within 10 ms ${l.within_10ms} %, within 25 ms ${l.within_25ms} %.`;
  }
  // The earned trainer's steps (the coach gated the tempo): each with the figures that made it, the latest 50.
  const steps = sessions.flatMap((s) => (s.trainer || []).map((t) => ({ ...t, day: s.day, song: s.song })));
  $("trainer-card").classList.toggle("hidden", !steps.length);
  const body = $("trainer-steps").querySelector("tbody");
  body.textContent = "";
  const heads = ["Day", "Song", "Bar", "Step", "Bars", "Hits", "Mean ms", "SD ms"];
  for (const t of steps.slice(-50).reverse()) {
    const tr = document.createElement("tr");
    const cells = [t.day, t.song, t.from_bar, `${t.direction === "up" ? "↑" : "↓"} ${t.from_bpm} → ${t.to_bpm}`, t.bars, t.hits,
      `${t.mean_ms > 0 ? "+" : ""}${t.mean_ms}`, t.sd_ms];
    cells.forEach((c, n) => { const td = document.createElement("td"); td.dataset.label = heads[n]; td.textContent = String(c); tr.appendChild(td); });
    body.appendChild(tr);
  }
  $("trainer-note").textContent = steps.length ? `${steps.filter((t) => t.direction === "up").length} steps up, ${steps.filter((t) => t.direction === "down").length} down.` : "";
}

let resizing = null;
export const practicePage = {
  async start() {
    window.addEventListener("resize", () => {
      clearTimeout(resizing);
      resizing = setTimeout(() => { if (last && $("page-practice").classList.contains("on")) draw(last); }, 150);
    });
    await this.show();
  },
  async show() { last = await api("GET", "/api/practice"); draw(last); },
};
