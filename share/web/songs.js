// SPDX-License-Identifier: GPL-3.0-or-later
// Songs: the box's songs and setlist as TOML, edited as fields. Every keystroke goes into the
// page's copy at once (adding a section or a setlist entry never loses what was typed); a
// renamed song is renamed in the setlist too. The page writes the TOML itself and remembers
// which field wrote each line, so the box's error is shown at that field, in words, without
// the file and line. The songs are saved with the ETag they were loaded with (If-Match):
// someone else's save in between is answered 412, and the page shows theirs.
import { api, etags, words } from "/app.js";
import { field as wireField } from "/protocol.js";

const $ = (id) => document.getElementById(id);
const sectionKeys = ["label", "bars", "meter", "tempo", "accents", "swing", "groove", "poly", "gap"];
const wideKeys = new Set(["label", "tempo"]);
let library = { songs: [], setlist: null };
let saved = new Set(); // the names the box has (Play on box needs the song saved)
let chosen = 0;
let loadedText = ""; // the songs as loaded: showing the page again reloads only when nothing was edited

// The subset of TOML the box writes: [[song]], [[song.section]], [setlist], key = value with
// strings, numbers, booleans and flat arrays.
export function parseTOML(text) {
  const lib = { songs: [], setlist: null };
  let table = null;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    if (line === "[[song]]") { table = { sections: [] }; lib.songs.push(table); continue; }
    if (line === "[[song.section]]") { table = {}; lib.songs[lib.songs.length - 1].sections.push(table); continue; }
    if (line === "[setlist]") { table = {}; lib.setlist = table; continue; }
    const eq = line.indexOf("=");
    if (eq < 0 || !table) continue;
    const key = line.slice(0, eq).trim().replace(/^"|"$/g, "");
    table[key] = value(line.slice(eq + 1).trim());
  }
  return lib;
}

function value(text) {
  if (text.startsWith("[")) {
    const inner = text.slice(1, text.lastIndexOf("]")).trim();
    if (!inner) return [];
    return inner.match(/"(?:[^"\\]|\\.)*"|[^,\s]+/g).map(value);
  }
  if (text.startsWith('"')) return JSON.parse(text.slice(0, text.lastIndexOf('"') + 1));
  if (text === "true" || text === "false") return text === "true";
  const n = Number(text.split("#")[0].trim());
  return Number.isNaN(n) ? text : n;
}

const lit = (v) => Array.isArray(v) ? `[${v.map(lit).join(", ")}]` : typeof v === "string" ? JSON.stringify(v) : String(v);

// The TOML text and, for each line (index = line - 1), where it came from:
// {song, section, key} (section null for the song's own keys) or {setlist: true, key}.
export function writeTOML(lib) {
  const lines = ["# Tactus songs and setlist"], owners = [null];
  const add = (text, owner = null) => { lines.push(text); owners.push(owner); };
  lib.songs.forEach((song, s) => {
    add("");
    add("[[song]]", { song: s, section: null, key: null });
    for (const [key, v] of Object.entries(song)) if (key !== "sections" && v !== "" && v !== undefined) add(`${key} = ${lit(v)}`, { song: s, section: null, key });
    song.sections.forEach((section, i) => {
      add("");
      add("[[song.section]]", { song: s, section: i, key: null });
      for (const [key, v] of Object.entries(section)) if (v !== "" && v !== undefined) add(`${key} = ${lit(v)}`, { song: s, section: i, key });
    });
  });
  if (lib.setlist) {
    add("");
    add("[setlist]", { setlist: true, key: null });
    for (const [key, v] of Object.entries(lib.setlist)) add(`${key} = ${lit(key === "songs" ? v.map(entryName) : v)}`, { setlist: true, key });
  }
  return { text: lines.join("\n") + "\n", owners };
}

// What the user typed, as the value the file wants: whole numbers for bars (and for a field
// that held a number), text otherwise; empty is "not set".
function typed(text, key, old) {
  const t = text.trim();
  if (t === "") return undefined;
  if ((key === "bars" || key === "count_in" || typeof old === "number") && /^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  return t;
}

function say(text, ok = false) {
  $("songs-error").textContent = text;
  $("songs-error").classList.toggle("ok", ok);
}

function clearErrors() {
  for (const el of document.querySelectorAll("#page-songs .bad")) { el.classList.remove("bad"); el.removeAttribute("title"); el.removeAttribute("aria-invalid"); }
  for (const el of document.querySelectorAll("#page-songs .field-msg")) if (el.id) el.textContent = ""; else el.remove();
}

// A message at its field: the field marked, the words just below it, and beside Save.
function showAt(where, message) {
  let field = null, place = "";
  if (where && where.setlist) {
    field = $("setlist");
    place = "Setlist";
  } else if (where && where.song !== undefined) {
    const song = library.songs[where.song];
    if (where.song !== chosen) { chosen = where.song; render(); }
    const name = song && song.name ? `"${song.name}"` : `song ${where.song + 1}`;
    if (where.section === null || where.section === undefined) {
      place = `Song ${name}`;
      field = where.key === "name" ? $("song-name") : where.key === "count_in" ? $("song-countin") : where.key === "section" ? $("section-add") : null;
    } else {
      place = `Section ${where.section + 1} of ${name}`;
      const row = $("sections").children[where.section];
      field = row ? row.querySelector(`input[data-key="${where.key}"]`) || row.querySelector("input") : null;
    }
  }
  const text = place ? `${place}: ${message}` : message;
  say(text);
  if (!field) return;
  field.classList.add("bad");
  field.setAttribute("aria-invalid", "true");
  field.title = text;
  if (field.id === "setlist") { $("setlist-error").textContent = message; return; }
  const note = document.createElement("span");
  note.className = "field-msg";
  note.textContent = message;
  field.after(note);
  field.focus();
}

// Setlist entries: the song itself (so renaming it renames its entries, whatever was typed on
// the way), or a name no song of the page has.
function setlistNames() { return (library.setlist && library.setlist.songs) || []; }
const entryName = (entry) => (typeof entry === "object" ? String(entry.name ?? "").trim() : entry);

function link(lib) {
  if (lib.setlist && Array.isArray(lib.setlist.songs)) lib.setlist.songs = lib.setlist.songs.map((n) => lib.songs.find((s) => s.name === n) || n);
  return lib;
}

function cell(section, key) {
  const input = document.createElement("input");
  input.value = section[key] ?? "";
  input.dataset.key = key;
  input.setAttribute("aria-label", key);
  // On every keystroke, so a re-render (a section added) keeps it; "change" too for scripts.
  const take = () => { section[key] = typed(input.value, key, section[key]); refreshDownload(); };
  input.addEventListener("input", take);
  input.addEventListener("change", take);
  return input;
}

function renderSections(song) {
  const body = $("sections");
  body.innerHTML = "";
  (song ? song.sections : []).forEach((section, i) => {
    const row = document.createElement("tr");
    for (const key of sectionKeys) {
      const td = document.createElement("td");
      td.dataset.label = key;
      if (wideKeys.has(key)) td.className = "wide";
      td.appendChild(cell(section, key));
      row.appendChild(td);
    }
    const td = document.createElement("td");
    td.className = "actions";
    const remove = document.createElement("button");
    remove.textContent = "✕";
    remove.title = `Remove section ${i + 1}`;
    remove.setAttribute("aria-label", remove.title);
    remove.addEventListener("click", () => { song.sections.splice(i, 1); render(); });
    td.appendChild(remove);
    row.appendChild(td);
    body.appendChild(row);
  });
}

function renderSetlist() {
  const list = $("setlist");
  list.innerHTML = "";
  const names = setlistNames();
  $("advance").textContent = library.setlist ? `advance: ${library.setlist.advance || "wait"}` : "no setlist yet: add songs with “Add to setlist”";
  names.forEach((entry, i) => {
    const name = entryName(entry);
    const li = document.createElement("li");
    li.draggable = true;
    li.textContent = name + " ";
    for (const [label, d, how] of [["↑", -1, "up"], ["↓", 1, "down"], ["✕", 0, "out of the setlist"]]) {
      const b = document.createElement("button");
      b.textContent = label;
      b.className = d === -1 ? "up" : d === 1 ? "down" : "drop";
      b.title = `Move ${name} ${how}`;
      b.addEventListener("click", () => {
        if (d === 0) names.splice(i, 1);
        else if (i + d >= 0 && i + d < names.length) [names[i], names[i + d]] = [names[i + d], names[i]];
        renderSetlist();
        refreshDownload();
      });
      li.appendChild(b);
    }
    li.addEventListener("dragstart", (e) => e.dataTransfer.setData("text/plain", String(i)));
    li.addEventListener("dragover", (e) => e.preventDefault());
    li.addEventListener("drop", (e) => { e.preventDefault(); const from = Number(e.dataTransfer.getData("text/plain")); const [moved] = names.splice(from, 1); names.splice(i, 0, moved); renderSetlist(); refreshDownload(); });
    list.appendChild(li);
  });
}

function renderPick() {
  const pick = $("song-pick");
  pick.innerHTML = "";
  library.songs.forEach((s, i) => { const o = document.createElement("option"); o.value = String(i); o.textContent = s.name || `(song ${i + 1}, no name yet)`; pick.appendChild(o); });
  pick.value = String(chosen);
}

function render() {
  clearErrors();
  renderPick();
  const song = library.songs[chosen];
  $("song-name").value = song ? song.name ?? "" : "";
  $("song-countin").value = song && song.count_in !== undefined ? song.count_in : "";
  for (const id of ["song-name", "song-countin", "song-setlist", "section-add", "song-play"]) $(id).disabled = !song;
  renderSections(song);
  renderSetlist();
  refreshDownload();
}

function refreshDownload() {
  const link = $("song-download");
  if (link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([writeTOML(library).text], { type: "application/toml" }));
}

// What the page can tell before the box does, in words at the field.
function check() {
  const seen = new Map();
  for (const [s, song] of library.songs.entries()) {
    const name = String(song.name ?? "").trim();
    if (!name) return [{ song: s, section: null, key: "name" }, "give the song a name"];
    if (seen.has(name)) return [{ song: s, section: null, key: "name" }, `another song is already named "${name}": names must differ`];
    seen.set(name, s);
    if (!song.sections.length) return [{ song: s, section: null, key: "section" }, "a song needs at least one section: add one"];
  }
  for (const entry of setlistNames()) {
    const name = entryName(entry);
    if (typeof entry === "object" ? !library.songs.includes(entry) : !seen.has(name)) return [{ setlist: true, key: "songs" }, `no song is named "${name}": remove it from the setlist (✕) or add that song`];
  }
  return null;
}

async function load() {
  const answer = await api("GET", "/api/songs");
  library = link(parseTOML(answer[wireField.toml]));
  saved = new Set(library.songs.map((s) => s.name));
  loadedText = writeTOML(library).text;
  chosen = Math.min(chosen, Math.max(0, library.songs.length - 1));
  render();
  $("songs-note").textContent = library.songs.length ? "" : "No songs on the box yet: “New song” starts one.";
  $("page-songs").dataset.loaded = "1";
}

async function save() {
  clearErrors();
  $("songs-note").textContent = "";
  const problem = check();
  if (problem) { showAt(...problem); return; }
  const { text, owners } = writeTOML(library);
  try {
    const answer = await api("PUT", "/api/songs", { [wireField.toml]: text }, undefined, { ifMatch: true });
    library = link(parseTOML(answer[wireField.toml]));
    saved = new Set(library.songs.map((s) => s.name));
    loadedText = writeTOML(library).text;
    // A write answered without an ETag: read it, so the next save is checked against it.
    if (!etags["/api/songs"]) await api("GET", "/api/songs").catch(() => {});
    render();
    say("saved", true);
  } catch (e) {
    if (e.stale) {
      const mine = library.songs[chosen] && library.songs[chosen].name;
      await load();
      const back = library.songs.findIndex((s) => s.name === mine);
      if (back >= 0 && back !== chosen) { chosen = back; render(); }
      $("songs-note").textContent = "Someone else changed the songs on the box since this page loaded them. Theirs are shown now; your changes were not saved: make them again and save.";
      say("not saved: someone else changed the songs");
      return;
    }
    const owner = e.data && e.data.line ? owners[e.data.line - 1] : null;
    // A table's header line ([[song]]): the field the box names, e.g. `song[2].section`.
    if (owner && !owner.key && e.data[wireField.field]) owner.key = String(e.data[wireField.field]).split(".").pop().replace(/\[\d+\]$/, "");
    showAt(owner, words(e.message));
  }
}

function freshName() {
  const names = new Set(library.songs.map((s) => s.name));
  let n = library.songs.length + 1;
  while (names.has(`Song ${n}`)) n += 1;
  return `Song ${n}`;
}

function wire() {
  $("song-pick").addEventListener("change", () => { chosen = Number($("song-pick").value); render(); });
  $("song-name").addEventListener("input", () => {
    const song = library.songs[chosen];
    if (!song) return;
    song.name = $("song-name").value;
    const option = $("song-pick").options[chosen];
    if (option) option.textContent = song.name || `(song ${chosen + 1}, no name yet)`;
    renderSetlist();
    refreshDownload();
  });
  $("song-name").addEventListener("change", () => { const song = library.songs[chosen]; if (song) { song.name = song.name.trim(); renderSetlist(); refreshDownload(); } });
  $("song-countin").addEventListener("input", () => {
    const song = library.songs[chosen];
    if (song) { song.count_in = typed($("song-countin").value, "count_in", song.count_in); refreshDownload(); }
  });
  $("song-new").addEventListener("click", () => { library.songs.push({ name: freshName(), sections: [{ bars: 8, tempo: "120" }] }); chosen = library.songs.length - 1; $("songs-note").textContent = ""; render(); $("song-name").select(); });
  $("section-add").addEventListener("click", () => { const song = library.songs[chosen]; if (song) { song.sections.push({ bars: 4 }); render(); } });
  $("song-save").addEventListener("click", save);
  $("song-play").addEventListener("click", async () => {
    const song = library.songs[chosen];
    if (!song) return;
    if (!saved.has(song.name)) { say(`save "${song.name}" to the box first: the box plays the songs it has`); return; }
    try { await api("POST", "/api/transport", { [wireField.playing]: true, [wireField.song]: song.name }); say(`playing ${song.name}`, true); }
    catch (e) { say(words(e.message)); }
  });
  $("song-setlist").addEventListener("click", () => {
    const song = library.songs[chosen];
    if (!song) return;
    library.setlist = library.setlist || { songs: [] };
    library.setlist.songs = library.setlist.songs || [];
    library.setlist.songs.push(song);
    renderSetlist();
    refreshDownload();
  });
  $("klick-file").addEventListener("change", async () => { const f = $("klick-file").files[0]; if (f) $("klick-map").value = await f.text(); });
  $("klick-import").addEventListener("click", async () => {
    const message = $("klick-error");
    try {
      const answer = await api("POST", "/api/songs/import-klick", { [wireField.name]: $("klick-name").value, [wireField.map]: $("klick-map").value });
      library.songs.push(...parseTOML(answer[wireField.toml]).songs);
      chosen = library.songs.length - 1;
      render();
      message.textContent = "imported: check it above, then Save to box to keep it";
      message.classList.add("ok");
    } catch (e) { message.textContent = words(e.message); message.classList.remove("ok"); }
  });
}

export const songsPage = {
  async start() { wire(); await load(); },
  async show() { if (writeTOML(library).text === loadedText) await load(); },
};
