// SPDX-License-Identifier: GPL-3.0-or-later
// Posts the code the box shows; the answer sets the HttpOnly token cookie.
import { field } from "/protocol.js";
const form = document.getElementById("pair");
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const code = document.getElementById("code").value.trim();
  const response = await fetch("/api/pair", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ [field.code]: code }) });
  if (response.ok) { location.href = "/"; return; }
  const body = await response.json().catch(() => ({}));
  document.getElementById("message").textContent = body[field.error] || `pairing failed (${response.status})`;
});
