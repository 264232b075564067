// SPDX-License-Identifier: GPL-3.0-or-later
// Practice: minutes per day from the box's practice log, as an SVG bar chart.
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

export const practicePage = {
  async start() { await this.show(); },
  async show() {
    const { minutes } = await api("GET", "/api/practice");
    const days = [];
    const today = new Date();
    for (let i = 29; i >= 0; i--) { const d = new Date(today - i * 86400000); days.push(d.toISOString().slice(0, 10)); }
    for (const day of Object.keys(minutes)) if (!days.includes(day)) days.unshift(day);
    days.sort();
    const shown = days.slice(-30);
    bars($("minutes"), shown, shown.map((d) => minutes[d] || 0));
    const total = Object.values(minutes).reduce((a, b) => a + b, 0);
    $("practice-total").textContent = `${total.toFixed(1)} minutes in all, on ${Object.keys(minutes).length} days`;
    $("tempo-plot").style.display = "none";
    $("tempo-note").textContent = "The box does not record the tempo reached per song or coach figures yet; they appear here once it does.";
  },
};
