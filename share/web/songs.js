// SPDX-License-Identifier: GPL-3.0-or-later
// Songs: the box's songs and setlist as TOML, edited as tables. The page writes the TOML
// itself and remembers which field wrote each line, so the box's error (file:line: field)
// is shown at that field, in the box's words.
import { api } from "/app.js";

const $ = (id) => document.getElementById(id);
const sectionKeys = ["label", "bars", "meter", "tempo", "accents", "swing", "groove", "poly", "gap"];
let library = { songs: [], setlist: null, extra: [] };
let chosen = 0;

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

/// The TOML text and, for each line (1-based), the input that wrote it.
export function writeTOML(lib, inputs = null) {
  const lines = ["# Tactus songs and setlist"], owners = [null];
  const add = (text, owner = null) => { lines.push(text); owners.push(owner); };
  lib.songs.forEach((song, s) => {
    add("");
    add("[[song]]");
    for (const [key, v] of Object.entries(song)) if (key !== "sections" && v !== "" && v !== undefined) add(`${key} = ${lit(v)}`, inputs && s === chosen ? inputs.song[key] : null);
    song.sections.forEach((section, i) => {
      add("");
      add("[[song.section]]");
      for (const [key, v] of Object.entries(section)) if (v !== "" && v !== undefined) add(`${key} = ${lit(v)}`, inputs && s === chosen ? inputs.sections[i]?.[key] : null);
    });
  });
  if (lib.setlist) {
    add("");
    add("[setlist]");
    for (const [key, v] of Object.entries(lib.setlist)) add(`${key} = ${lit(v)}`, key === "songs" ? $("setlist") : null);
  }
  return { text: lines.join("\n") + "\n", owners };
}

let inputs = { song: {}, sections: [] };

function cell(section, key) {
  const input = document.createElement("input");
  input.value = section[key] ?? "";
  input.dataset.key = key;
  input.addEventListener("change", () => {
    const t = input.value.trim();
    section[key] = t === "" ? undefined : (key === "bars" && /^\d+$/.test(t) ? Number(t) : t);
    refreshDownload();
  });
  return input;
}

function render() {
  const pick = $("song-pick");
  pick.innerHTML = library.songs.map((s, i) => `<option value="${i}">${String(s.name).replace(/[<&]/g, "")}</option>`).join("");
  pick.value = String(chosen);
  const song = library.songs[chosen];
  inputs = { song: { name: $("song-name"), count_in: $("song-countin") }, sections: [] };
  $("song-name").value = song ? song.name : "";
  $("song-countin").value = song && song.count_in !== undefined ? song.count_in : "";
  const body = $("sections");
  body.innerHTML = "";
  (song ? song.sections : []).forEach((section, i) => {
    const row = document.createElement("tr");
    const owned = {};
    for (const key of sectionKeys) { const td = document.createElement("td"); const input = cell(section, key); owned[key] = input; td.appendChild(input); row.appendChild(td); }
    const td = document.createElement("td");
    const remove = document.createElement("button");
    remove.textContent = "✕";
    remove.addEventListener("click", () => { song.sections.splice(i, 1); render(); });
    td.appendChild(remove);
    row.appendChild(td);
    body.appendChild(row);
    inputs.sections.push(owned);
  });
  const list = $("setlist");
  list.innerHTML = "";
  const names = (library.setlist && library.setlist.songs) || [];
  $("advance").textContent = library.setlist ? `advance: ${library.setlist.advance || "wait"}` : "no setlist yet";
  names.forEach((name, i) => {
    const li = document.createElement("li");
    li.draggable = true;
    li.textContent = name + " ";
    for (const [label, d] of [["↑", -1], ["↓", 1], ["✕", 0]]) {
      const b = document.createElement("button");
      b.textContent = label;
      b.className = d === -1 ? "up" : d === 1 ? "down" : "drop";
      b.addEventListener("click", () => {
        if (d === 0) names.splice(i, 1);
        else if (i + d >= 0 && i + d < names.length) [names[i], names[i + d]] = [names[i + d], names[i]];
        render();
      });
      li.appendChild(b);
    }
    li.addEventListener("dragstart", (e) => e.dataTransfer.setData("text/plain", String(i)));
    li.addEventListener("dragover", (e) => e.preventDefault());
    li.addEventListener("drop", (e) => { e.preventDefault(); const from = Number(e.dataTransfer.getData("text/plain")); const [moved] = names.splice(from, 1); names.splice(i, 0, moved); render(); });
    list.appendChild(li);
  });
  refreshDownload();
}

function refreshDownload() {
  const link = $("song-download");
  if (link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([writeTOML(library).text], { type: "application/toml" }));
}

async function save() {
  const song = library.songs[chosen];
  if (song) {
    song.name = $("song-name").value.trim();
    const countIn = $("song-countin").value.trim();
    song.count_in = countIn === "" ? undefined : (/^\d+$/.test(countIn) ? Number(countIn) : countIn);
  }
  for (const el of document.querySelectorAll("#page-songs .bad")) el.classList.remove("bad");
  const { text, owners } = writeTOML(library, inputs);
  try {
    const answer = await api("PUT", "/api/songs", { toml: text });
    $("songs-error").textContent = "saved";
    $("songs-error").classList.add("ok");
    library = parseTOML(answer.toml);
    render();
  } catch (e) {
    $("songs-error").textContent = e.message;
    $("songs-error").classList.remove("ok");
    const owner = e.data && e.data.line ? owners[e.data.line - 1] : null;
    if (owner) { owner.classList.add("bad"); owner.title = e.message; owner.focus(); }
  }
}

export const songsPage = {
  async start() {
    $("song-pick").addEventListener("change", () => { chosen = Number($("song-pick").value); render(); });
    $("song-new").addEventListener("click", () => { library.songs.push({ name: `Song ${library.songs.length + 1}`, sections: [{ bars: 8, tempo: "120" }] }); chosen = library.songs.length - 1; render(); });
    $("section-add").addEventListener("click", () => { const song = library.songs[chosen]; if (song) { song.sections.push({ bars: 4 }); render(); } });
    $("song-save").addEventListener("click", save);
    $("song-play").addEventListener("click", async () => {
      const song = library.songs[chosen];
      if (!song) return;
      try { await api("POST", "/api/transport", { playing: true, song: song.name }); $("songs-error").textContent = `playing ${song.name}`; $("songs-error").classList.add("ok"); }
      catch (e) { $("songs-error").textContent = e.message; $("songs-error").classList.remove("ok"); }
    });
    $("song-setlist").addEventListener("click", () => {
      const song = library.songs[chosen];
      if (!song) return;
      library.setlist = library.setlist || { songs: [] };
      library.setlist.songs = library.setlist.songs || [];
      library.setlist.songs.push(song.name);
      render();
    });
    $("klick-file").addEventListener("change", async () => { const f = $("klick-file").files[0]; if (f) $("klick-map").value = await f.text(); });
    $("klick-import").addEventListener("click", async () => {
      try {
        const answer = await api("POST", "/api/songs/import-klick", { name: $("klick-name").value, map: $("klick-map").value });
        library.songs.push(...parseTOML(answer.toml).songs);
        chosen = library.songs.length - 1;
        $("klick-error").textContent = "imported: save to keep it";
        render();
      } catch (e) { $("klick-error").textContent = e.message; }
    });
    await this.show();
  },
  async show() { library = parseTOML((await api("GET", "/api/songs")).toml); chosen = Math.min(chosen, Math.max(0, library.songs.length - 1)); render(); },
};
