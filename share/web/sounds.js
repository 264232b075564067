// SPDX-License-Identifier: GPL-3.0-or-later
// Sounds: the box's sets (choose, delete), and a new set uploaded file by file as audio/wav;
// the box checks each file as it checks its sounds folder.
import { api } from "/app.js";
import { field } from "/protocol.js";

const $ = (id) => document.getElementById(id);
const files = ["accent", "beat", "sub"];

async function list() {
  const s = await api("GET", "/api/sounds");
  const body = $("sound-list");
  body.innerHTML = "";
  for (const name of s[field.sounds]) {
    const row = document.createElement("tr");
    const td = document.createElement("td");
    td.textContent = name + (name === s[field.current] ? "  (playing)" : "");
    row.appendChild(td);
    const actions = document.createElement("td");
    actions.className = "actions";
    const choose = document.createElement("button");
    choose.textContent = "Choose";
    choose.addEventListener("click", async () => {
      $("sounds-error").textContent = "";
      try { await api("PATCH", "/api/state", { [field.sound]: name }); } catch (e) { $("sounds-error").textContent = `${name}: ${e.message}`; }
      list();
    });
    actions.appendChild(choose);
    if (s[field.builtIn].includes(name)) {
      // The box's own sets and the installed spoken counts (voice-LANG): nothing to delete.
      const tag = document.createElement("span");
      tag.className = "tag";
      tag.textContent = "built in";
      actions.appendChild(tag);
    } else {
      const remove = document.createElement("button");
      remove.textContent = "Delete";
      remove.addEventListener("click", async () => {
        $("sounds-error").textContent = "";
        try { await api("DELETE", `/api/sounds/${encodeURIComponent(name)}`); } catch (e) { $("sounds-error").textContent = `${name}: ${e.message}`; }
        list();
      });
      actions.appendChild(remove);
    }
    row.appendChild(actions);
    body.appendChild(row);
  }
}

async function preview() {
  // The chosen files as they will sound, one after the other, before they go to the box.
  for (const f of files) {
    const file = $(`upload-${f}`).files[0];
    if (!file) continue;
    const audio = new Audio(URL.createObjectURL(file));
    await audio.play().catch(() => {});
    await new Promise((r) => setTimeout(r, 450));
  }
}

async function upload() {
  const name = $("upload-name").value.trim();
  $("upload-error").textContent = "";
  $("upload-done").textContent = "";
  if (!name) { $("upload-error").textContent = "give the set a name"; return; }
  for (const f of files) {
    const file = $(`upload-${f}`).files[0];
    if (!file) { $("upload-error").textContent = `${f}.wav is missing`; return; }
    if (file.size > 20e6) { $("upload-error").textContent = `${f}.wav is larger than 20 MB`; return; }
  }
  try {
    for (const f of files) {
      const answer = await api("PUT", `/api/sounds/${encodeURIComponent(name)}/${f}.wav`, $(`upload-${f}`).files[0], "audio/wav");
      $("upload-done").textContent = answer[field.complete] ? `${name} is ready` : `${f}.wav taken`;
    }
    list();
  } catch (e) { $("upload-error").textContent = e.message; }
}

export const soundsPage = {
  start() { $("upload-go").addEventListener("click", upload); $("upload-preview").addEventListener("click", preview); list(); },
  show: list,
};
