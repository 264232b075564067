// SPDX-License-Identifier: GPL-3.0-or-later
// Play: tempo wheel, +/-, TAP, START/STOP, pattern fields, volumes, and the live beat view
// drawn at the time each click is heard from the box (the box's timeline, mapped to this page's clock).
// No instrument rule is computed here: TAP goes to the box (its tap-tempo rule and tolerance),
// the beats of a bar and each beat's number come from the box (`beat_count`, the beat lines).
import { api, clock, on, state as initial } from "/app.js";
import { field } from "/protocol.js";

const $ = (id) => document.getElementById(id);
let current = null;
let pending = false;
// For tests and curious users: each beat shown, with the box time it was due and was drawn.
window.tactusBeats = [];

// Sent with the state's ETag (If-Match): when someone else changed the settings since (at the
// box, or another browser), the box answers 412 and the page shows theirs and says so.
async function patch(fields, fieldName) {
  const error = $("play-error");
  try {
    const s = await api("PATCH", "/api/state", fields, undefined, { ifMatch: true });
    error.textContent = "";
    for (const el of document.querySelectorAll("#page-play .bad")) el.classList.remove("bad");
    show(s);
  } catch (e) {
    if (e.stale) {
      show(e.data && e.data.state ? e.data.state : await api("GET", "/api/state"));
      error.textContent = "Someone else changed the settings (at the box or in another browser): theirs are shown. Make your change again.";
      return;
    }
    error.textContent = e.message;
    const bad = (e.data && e.data[field.field]) || fieldName;
    if (bad && $(bad)) $(bad).classList.add("bad");
  }
}

function show(s) {
  current = s;
  $("bpm").textContent = s[field.bpm];
  $("startstop").textContent = s[field.playing] ? "STOP" : "START";
  $("startstop").classList.toggle("playing", s[field.playing]);
  for (const key of patterns) if (document.activeElement !== $(key)) $(key).value = s[key];
  if ($("sound").value !== s[field.sound]) $("sound").value = s[field.sound];
  // The box counts the bar's beats (6/8 in dotted quarters has 2), never the meter's numerator.
  const beats = Math.max(1, Number(s[field.beatCount]) || 1);
  const box = $("beats");
  if (box.children.length !== beats) {
    box.innerHTML = "";
    for (let i = 0; i < beats; i++) box.appendChild(document.createElement("span"));
  }
  [...box.children].forEach((el, i) => el.classList.toggle("accent", (s[field.accents] || "")[i] === "X"));
  volumes(s[field.volume]);
  if (!s[field.playing]) $("beatinfo").textContent = "stopped";
  const angle = ((Number(s[field.bpm]) - 1) / 998) * 300 - 150;
  $("wheel-dot").setAttribute("transform", `rotate(${angle} 85 85)`);
}

function volumes(v) {
  const box = $("volumes");
  const names = Object.keys(v).filter((k) => k !== field.poly);
  if (box.dataset.names !== names.join()) {
    box.dataset.names = names.join();
    box.innerHTML = "";
    for (const name of names) {
      const label = document.createElement("label");
      label.textContent = name;
      const input = document.createElement("input");
      Object.assign(input, { type: "range", min: 0, max: 100, id: `volume-${name}` });
      input.addEventListener("change", () => patch({ [field.volume]: { [name]: Number(input.value) } }));
      label.appendChild(input);
      box.appendChild(label);
    }
  }
  for (const name of names) if (document.activeElement !== $(`volume-${name}`)) $(`volume-${name}`).value = v[name];
}

function wheel() {
  // Dragging around the wheel: 36 degrees a step of 1 BPM, as detents on the box.
  const svg = $("wheel");
  let last = null, carry = 0;
  const angleOf = (e) => { const r = svg.getBoundingClientRect(); return Math.atan2(e.clientY - r.top - r.height / 2, e.clientX - r.left - r.width / 2) * 180 / Math.PI; };
  svg.addEventListener("pointerdown", (e) => { svg.setPointerCapture(e.pointerId); last = angleOf(e); });
  svg.addEventListener("pointerup", () => { last = null; });
  svg.addEventListener("pointermove", (e) => {
    if (last === null || !current) return;
    const a = angleOf(e);
    let d = a - last;
    if (d > 180) d -= 360;
    if (d < -180) d += 360;
    last = a;
    carry += d / 12;
    const steps = Math.trunc(carry);
    if (steps !== 0 && !pending) {
      carry -= steps;
      pending = true;
      const bpm = Math.min(999, Math.max(1, Math.round(Number(current[field.bpm])) + steps));
      $("bpm").textContent = bpm;
      patch({ [field.bpm]: bpm }).finally(() => { pending = false; });
    }
  });
}

// TAP is the box's TAP button: the box times the taps and applies its tap-tempo rule.
function tapTempo() {
  // A click (pointer or keyboard): each tap as late after the finger as the others.
  $("tap").addEventListener("click", async () => {
    try {
      show(await api("POST", "/api/tap", {}));
      $("play-error").textContent = "";
    } catch (error) { $("play-error").textContent = error.message; }
  });
}

function beatView() {
  let lastNs = null, period = 500, lastBeat = 0, timerLate = 0;
  // Beats drawn or waiting, by "bar:beat". The box announces its grid's beats up to half a
  // second ahead (`beats`), so each is drawn on time; the beat's own line (`beat`, sent when
  // the box renders it) confirms it, or is drawn at once if its announcement never came.
  const planned = new Map();
  const plan = (bar, beat, ns) => {
    const key = `${bar}:${beat}`;
    const known = planned.get(key);
    if (known && Math.abs(known.ns - ns) < 100e6) {
      if (known.entry) { known.entry.ns = ns; return; }
      if (Math.abs(known.ns - ns) < 1e6) { known.ns = ns; return; }
      clearTimeout(known.timer);
    }
    const item = { ns, entry: null, timer: null };
    planned.delete(key);
    planned.set(key, item);
    if (planned.size > 64) planned.delete(planned.keys().next().value);
    const draw = (how) => {
      const shown = performance.now();
      item.entry = { bar, beat, ns: item.ns, plannedNs: ns, shownNs: clock.toBox(shown), shownMs: shown, how };
      window.tactusBeats.push(item.entry);
      if (window.tactusBeats.length > 2000) window.tactusBeats.splice(0, 1000);
      const boxes = $("beats").children;
      for (const el of boxes) el.classList.remove("lit");
      if (boxes[beat]) boxes[beat].classList.add("lit");
      $("beatinfo").textContent = `bar ${bar + 1} beat ${beat + 1}`;
      if (lastNs !== null && item.ns > lastNs) period = (item.ns - lastNs) / 1e6;
      lastNs = item.ns;
      lastBeat = beat;
    };
    // A timer fires late on a busy machine (by a few ms, now and then by tens): wake early by
    // the worst lateness seen lately plus 2 ms (at most 30 ms and a third of a beat) and wait out the rest.
    const due = clock.toPage(ns);
    const settle = (how) => { while (performance.now() < due) { /* the margin, a few ms */ } draw(how); };
    const margin = Math.min(Math.max(3, timerLate + 2), period / 3, 30);
    const wait = due - margin - performance.now();
    if (wait > 1) {
      item.timer = setTimeout(() => {
        const late = performance.now() - (due - margin);
        timerLate = Math.max(late, timerLate * 0.9);
        settle(late > margin ? "late timer" : "timer");
      }, wait);
    } else settle(wait > -margin ? "waited" : "late news");
  };
  // The grid from `from` on, as it now is: what was planned there and is not listed is gone.
  on("beats", (m) => {
    if (!clock.synced) return;
    const listed = new Set(m[field.beats].map((b) => `${b[field.bar]}:${b[field.beat]}`));
    for (const [key, item] of planned) {
      if (!item.entry && item.ns >= m[field.from] && !listed.has(key)) { clearTimeout(item.timer); planned.delete(key); }
    }
    for (const b of m[field.beats]) plan(b[field.bar], b[field.beat], b[field.ns]);
  });
  on("beat", (m) => { if (clock.synced) plan(m[field.bar], m[field.beat], m[field.ns]); });
  const frame = () => {
    if (current && current[field.playing] && lastNs !== null) {
      const since = performance.now() - clock.toPage(lastNs);
      const phase = Math.min(since / period, 1);
      // The bob reaches an end on each beat: cosine swing from side to side.
      const side = lastBeat % 2 === 0 ? 1 : -1;
      const x = 110 + side * 80 * Math.cos(Math.PI * phase);
      $("rod").setAttribute("x2", x);
      $("bob").setAttribute("cx", x);
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

const patterns = [field.meter, field.accents, field.subdivisions];

export const playPage = {
  async start() {
    $("minus").addEventListener("click", () => current && patch({ [field.bpm]: Math.max(1, Math.round(Number(current[field.bpm])) - 1) }));
    $("plus").addEventListener("click", () => current && patch({ [field.bpm]: Math.min(999, Math.round(Number(current[field.bpm])) + 1) }));
    $("startstop").addEventListener("click", async () => show(await api("POST", "/api/transport", { [field.playing]: !(current && current[field.playing]) })));
    for (const key of patterns) $(key).addEventListener("change", () => patch({ [key]: $(key).value }, key));
    $("sound").addEventListener("change", () => patch({ [field.sound]: $("sound").value }, field.sound));
    const sounds = await api("GET", "/api/sounds");
    $("sound").innerHTML = sounds[field.sounds].map((n) => `<option>${n.replace(/[<&]/g, "")}</option>`).join("");
    wheel();
    tapTempo();
    beatView();
    on("state", show);
    if (initial) show(initial);
  },
  async show() { $("sound").innerHTML = (await api("GET", "/api/sounds"))[field.sounds].map((n) => `<option>${n.replace(/[<&]/g, "")}</option>`).join(""); if (current) show(current); },
};
