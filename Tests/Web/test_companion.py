# SPDX-License-Identifier: GPL-3.0-or-later
"""The companion against a real tactus-web and a real-time simulated box (README "Companion").

Security and API over real HTTP, the control socket through `tactus ctl`, and the pages in
headless Chromium (Debian's chromium driven by Playwright, no browser download)."""
import base64, json, os, secrets, socket, sys, time, unittest
sys.path.insert(0, os.path.dirname(__file__))
from boxsim import SimulatedBox, wav, ROOT

BOX = None
TOKEN = None
DOCS = os.path.join(ROOT, "docs", "companion")


def setUpModule():
    global BOX
    BOX = SimulatedBox()


def tearDownModule():
    BOX.stop()


def monotonic_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


class Companion(unittest.TestCase):
    def auth(self, extra=None):
        h = {"Authorization": f"Bearer {TOKEN}", "Origin": BOX.origin}
        h.update(extra or {})
        return h

    def test_00_the_line_and_the_control_socket(self):
        self.assertRegex(BOX.line, r"^web: http://127\.0\.0\.1:\d+ pairing code \d{6}$")
        state = BOX.ctl("state")
        self.assertEqual(state.returncode, 0, state.stderr)
        self.assertIn('"bpm":', state.stdout)
        changed = BOX.ctl("set", "bpm=132", "meter=7/8")
        self.assertEqual(changed.returncode, 0, changed.stderr)
        self.assertEqual(json.loads(changed.stdout)["bpm"], 132)
        self.assertEqual(json.loads(changed.stdout)["beat_unit"], "1/8")
        bad = BOX.ctl("set", "bpm=1000")
        self.assertEqual(bad.returncode, 2)
        self.assertEqual(bad.stderr.strip(), "tactus: error: bpm = 1000 is invalid: allowed 1 to 999, at most 3 decimals")
        self.assertEqual(json.loads(BOX.ctl("state").stdout)["bpm"], 132)
        BOX.ctl("set", "bpm=120", "meter=4/4")

    def test_01_browser_pairs_plays_and_shows_the_beat(self):
        global TOKEN
        from playwright.sync_api import sync_playwright
        os.makedirs(DOCS, exist_ok=True)
        with sync_playwright() as p:
            args = ["--no-sandbox"] if os.geteuid() == 0 else []
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=args)
            # bypass_csp: Playwright's wait_for_function evaluates strings, which the pages' CSP forbids.
            page = browser.new_context(viewport={"width": 1000, "height": 760}, bypass_csp=True).new_page()
            page.goto(BOX.origin + "/")
            self.assertTrue(page.url.endswith("/pair"), page.url)
            page.screenshot(path=os.path.join(DOCS, "pair.png"))
            page.fill("#code", BOX.code)
            page.click("button.go")
            page.wait_for_url(BOX.origin + "/")
            cookies = {c["name"]: c for c in page.context.cookies()}
            self.assertTrue(cookies["tactus_token"]["httpOnly"])
            self.assertEqual(cookies["tactus_token"]["sameSite"], "Strict")
            TOKEN = cookies["tactus_token"]["value"]
            self.assertEqual(len(TOKEN), 64)

            # Tempo: + and the box's state follows.
            page.wait_for_function("document.getElementById('bpm').textContent === '120'")
            page.click("#plus")
            page.wait_for_function("document.getElementById('bpm').textContent === '121'")
            self.assertEqual(json.loads(BOX.ctl("state").stdout)["bpm"], 121)
            # A bad meter: the box's words at the field.
            page.fill("#meter", "4/0")
            page.press("#meter", "Enter")
            page.wait_for_selector("#meter.bad")
            self.assertIn("meter = \"4/0\" is invalid", page.text_content("#play-error"))
            page.fill("#meter", "4/4")
            page.press("#meter", "Enter")
            page.wait_for_function("!document.querySelector('#meter.bad')")

            # Live beats: each drawn within 10 ms of the box's heard click, on a clock mapped to the box's.
            page.click("#startstop")
            # Up to three windows of 24 beats: a host starved by other work (two shared cores)
            # delays the browser's timers, never the box's grid; one clean window must show it.
            windows = []
            for window in range(3):
                page.evaluate("window.tactusBeats.length = 0")
                page.wait_for_function("window.tactusBeats.length >= 24", timeout=30000)
                beats = page.evaluate("window.tactusBeats.slice(0, 24)")
                late = sorted(abs(b["shownNs"] - b["ns"]) / 1e6 for b in beats[2:])
                windows.append(late)
                print(f"\nlive view window {window + 1}: median {late[len(late)//2]:.2f} ms, 90 % {late[int(len(late) * 0.9)]:.2f} ms,"
                      f" worst {late[-1]:.2f} ms from the heard click (load {os.getloadavg()[0]:.1f})", file=sys.stderr)
                if late[int(len(late) * 0.9)] < 10.0:
                    break
            before = monotonic_ns()
            mapped = page.evaluate("window.tactusClock.toBox(performance.now())")
            after = monotonic_ns()
            self.assertLessEqual(before - 10e6, mapped)
            self.assertLessEqual(mapped, after + 10e6)
            print(f"clock map within [{(mapped - after)/1e6:.2f}, {(mapped - before)/1e6:.2f}] ms", file=sys.stderr)
            # 90 % within 10 ms in one window (every beat within 10 ms on a quiet host; the worst is
            # printed: a starved host delays a timer now and then).
            self.assertTrue(any(late[int(len(late) * 0.9)] < 10.0 for late in windows), windows)
            # The page's beats are the box's onsets: each at the heard time of the box's own onset event.
            time.sleep(0.3)  # the simulation writes a line once nothing earlier can come (20 ms)
            onsets = [e for e in BOX.events() if e["type"] == "onset" and e["layer"] == 0 and e["kind"] in ("accent", "soft", "beat")]
            self.assertTrue(onsets)
            for b in beats:
                nearest = min(abs(e["mono"] * 1e9 - b["ns"]) for e in onsets if (e["bar"], e["beat"]) == (b["bar"], b["beat"]))
                self.assertLess(nearest, 0.01e6)
            # Consecutive: no beat lost between the first and the last shown.
            positions = [(b["bar"], b["beat"]) for b in beats]
            for (bar0, beat0), (bar1, beat1) in zip(positions, positions[1:]):
                self.assertIn((bar1, beat1), [(bar0, beat0 + 1), (bar0 + 1, 0)])
            page.screenshot(path=os.path.join(DOCS, "play.png"))
            page.click("#startstop")
            page.wait_for_function("document.getElementById('startstop').textContent === 'START'")

            # Songs: a new song saved, a field error shown at the field, then played by the box.
            page.goto(BOX.origin + "/#songs")
            page.click("#song-new")
            page.fill("#song-name", "Web Song")
            page.fill("#sections tr:first-child input[data-key=bars]", "0")
            page.dispatch_event("#sections tr:first-child input[data-key=bars]", "change")
            page.click("#song-save")
            page.wait_for_selector("#sections input.bad[data-key=bars]")
            self.assertIn("bars = 0 is invalid", page.text_content("#songs-error"))
            page.fill("#sections tr:first-child input[data-key=bars]", "4")
            page.dispatch_event("#sections tr:first-child input[data-key=bars]", "change")
            page.fill("#sections tr:first-child input[data-key=tempo]", "150")
            page.dispatch_event("#sections tr:first-child input[data-key=tempo]", "change")
            page.click("#song-save")
            page.wait_for_function("document.getElementById('songs-error').textContent === 'saved'")
            status, songs, _ = BOX.request("GET", "/api/songs", headers=self.auth())
            self.assertIn('name = "Web Song"', songs["toml"])
            played_from = time.clock_gettime(time.CLOCK_MONOTONIC)
            page.click("#song-play")
            deadline = time.time() + 10
            while time.time() < deadline:
                state = json.loads(BOX.ctl("state").stdout)
                if state["song"] and state["song"]["name"] == "Web Song" and state["playing"] and state["song"]["bar"] not in ("-", None):
                    break
                time.sleep(0.2)
            self.assertEqual(state["song"]["name"], "Web Song")
            self.assertTrue(state["playing"])
            self.assertEqual(state["bpm"], 121)  # the song's section plays at 150 (song.bpm); the setting stays
            self.assertEqual(state["song"]["bpm"], "150")
            # The box's own events: the song playing, and its clicks at 150 BPM (0.4 s apart).
            time.sleep(1.5)
            events = [e for e in BOX.events() if e["mono"] >= played_from]
            states = [e for e in BOX.events() if e["type"] == "state" and e["mono"] >= played_from - 1]
            self.assertTrue(any(e["song"] and e["song"]["name"] == "Web Song" and e["playing"] for e in events if e["type"] == "state"),
                            [(e["mono"] - played_from, e["song"], e["playing"]) for e in states][:6])
            beats_heard = [e["mono"] for e in events if e["type"] == "onset" and e["layer"] == 0 and e["kind"] != "poly" and e["bar"] >= 0]
            self.assertGreaterEqual(len(beats_heard), 3)
            for a, b in zip(beats_heard, beats_heard[1:]):
                self.assertAlmostEqual(b - a, 0.4, delta=0.001)
            BOX.request("POST", "/api/transport", {"playing": False}, headers=self.auth())

            # Setlist: two songs, the first moved down, saved, in the new order on the box.
            status, _, _ = BOX.request("PUT", "/api/songs", {"toml": songs["toml"] + '\n[[song]]\nname = "Other"\n[[song.section]]\nbars = 2\ntempo = "90"\n\n[setlist]\nsongs = ["Web Song", "Other"]\n'}, headers=self.auth())
            self.assertEqual(status, 200)
            page.reload()
            page.wait_for_selector("#setlist li")
            page.click("#setlist li:first-child button.down")
            self.assertEqual(page.text_content("#setlist li:first-child").split(" ")[0], "Other")
            page.click("#song-save")
            page.wait_for_function("document.getElementById('songs-error').textContent === 'saved'")
            _, songs, _ = BOX.request("GET", "/api/songs", headers=self.auth())
            self.assertIn('songs = ["Other", "Web Song"]', songs["toml"])
            page.screenshot(path=os.path.join(DOCS, "songs.png"), full_page=True)

            # Sounds: a set uploaded from the page, chosen, and played.
            folder = os.path.join(BOX.folder, "wavs")
            os.makedirs(folder, exist_ok=True)
            for name, f in (("accent", 1760), ("beat", 1320), ("sub", 990)):
                wav(os.path.join(folder, f"{name}.wav"), f)
            page.goto(BOX.origin + "/#sounds")
            page.fill("#upload-name", "browser-set")
            for name in ("accent", "beat", "sub"):
                page.set_input_files(f"#upload-{name}", os.path.join(folder, f"{name}.wav"))
            page.click("#upload-go")
            page.wait_for_function("document.getElementById('upload-done').textContent === 'browser-set is ready'", timeout=20000)
            page.wait_for_selector("#sound-list td:text-is('browser-set')")
            page.click("#sound-list tr:has(td:text-is('browser-set')) button:text('Choose')")
            page.wait_for_selector("#sound-list td:text-is('browser-set  (playing)')")
            page.screenshot(path=os.path.join(DOCS, "sounds.png"))
            status, state, _ = BOX.request("POST", "/api/transport", {"playing": True}, headers=self.auth())
            self.assertEqual(state["sound"], "browser-set")
            page.goto(BOX.origin + "/#play")
            page.wait_for_function("window.tactusBeats.length >= 4", timeout=20000)
            BOX.request("POST", "/api/transport", {"playing": False}, headers=self.auth())
            states = [e for e in BOX.events() if e["type"] == "state" and e["sound"] == "browser-set" and e["playing"]]
            self.assertTrue(states)
            self.assertTrue(any(e["type"] == "onset" and e["mono"] > states[0]["mono"] for e in BOX.events()))

            page.goto(BOX.origin + "/#practice")
            page.wait_for_function("document.getElementById('practice-total').textContent.includes('minutes')")
            # The practice log as the box keeps it, a bar per day with minutes.
            status, practice, _ = BOX.request("GET", "/api/practice", headers=self.auth())
            for day, minutes in BOX.practice.items():
                self.assertAlmostEqual(practice["minutes"][day], minutes, delta=0.01)
            bars = page.evaluate("[...document.querySelectorAll('#minutes rect')].filter(r => Number(r.getAttribute('height')) > 0).length")
            self.assertGreaterEqual(bars, len(BOX.practice))
            page.screenshot(path=os.path.join(DOCS, "practice.png"))
            page.goto(BOX.origin + "/#settings")
            page.wait_for_selector("#pref-momentum")
            page.select_option("#pref-momentum", "off")
            page.wait_for_timeout(500)
            status, prefs, _ = BOX.request("GET", "/api/preferences", headers=self.auth())
            self.assertFalse(prefs["momentum"])
            page.screenshot(path=os.path.join(DOCS, "settings.png"))
            size = sum(os.path.getsize(os.path.join(ROOT, "share", "web", f)) for f in os.listdir(os.path.join(ROOT, "share", "web")))
            self.assertLess(size, 150 * 1024)
            browser.close()

    def test_02_tokens_origins_hosts(self):
        self.assertIsNotNone(TOKEN, "pairing failed")
        BOX.request("POST", "/api/transport", {"playing": False}, headers=self.auth())
        status, body, _ = BOX.request("GET", "/api/state")
        self.assertEqual(status, 401)
        status, _, _ = BOX.request("GET", "/api/state", headers={"Authorization": "Bearer " + secrets.token_hex(32)})
        self.assertEqual(status, 401)  # a token from another box
        status, _, _ = BOX.request("GET", "/api/state", headers={"Cookie": "tactus_token=" + secrets.token_hex(32)})
        self.assertEqual(status, 401)
        status, state, _ = BOX.request("GET", "/api/state", headers={"Cookie": "tactus_token=" + TOKEN})
        self.assertEqual(status, 200)
        self.assertIn("bpm", state)
        status, _, _ = BOX.request("PATCH", "/api/state", {"bpm": 100}, headers={"Cookie": "tactus_token=" + TOKEN, "Origin": "http://evil.example"})
        self.assertEqual(status, 403)
        status, _, _ = BOX.request("PATCH", "/api/state", {"bpm": 100}, headers={"Cookie": "tactus_token=" + TOKEN})
        self.assertEqual(status, 403)  # a cookie without Origin
        status, _, _ = BOX.request("GET", "/api/state", headers={"Host": "evil.example:%d" % BOX.port, "Authorization": "Bearer " + TOKEN})
        self.assertEqual(status, 403)  # DNS rebinding: a foreign Host
        # A cross-site form post: another origin, a form's content type.
        for origin, code in (("http://evil.example", 403), (BOX.origin, 415)):
            status, _, _ = BOX.request("POST", "/api/transport", raw=b"playing=true",
                                       headers={"Cookie": "tactus_token=" + TOKEN, "Origin": origin, "Content-Type": "application/x-www-form-urlencoded"})
            self.assertEqual(status, code)
        self.assertFalse(json.loads(BOX.ctl("state").stdout)["playing"])
        status, state, _ = BOX.request("PATCH", "/api/state", {"bpm": 133}, headers=self.auth())
        self.assertEqual((status, state["bpm"]), (200, 133))
        status, err, _ = BOX.request("PATCH", "/api/state", {"bpm": 1000}, headers=self.auth())
        self.assertEqual(status, 422)
        self.assertEqual(err, {"error": "bpm = 1000 is invalid: allowed 1 to 999, at most 3 decimals", "field": "bpm"})
        status, err, _ = BOX.request("PATCH", "/api/state", {"mode": "song"}, headers=self.auth())
        self.assertEqual((status, err["field"]), (422, "mode"))
        status, err, _ = BOX.request("PATCH", "/api/preferences", {"companion": False}, headers=self.auth())
        self.assertEqual(status, 422)  # switched at the box only

    def test_03_websocket_upgrade_checks_token_and_origin(self):
        def upgrade(headers):
            s = socket.create_connection(("127.0.0.1", BOX.port), timeout=10)
            key = base64.b64encode(os.urandom(16)).decode()
            lines = [f"GET /ws HTTP/1.1", f"Host: {BOX.host}", "Upgrade: websocket", "Connection: Upgrade",
                     f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"] + [f"{k}: {v}" for k, v in headers.items()]
            s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
            answer = s.recv(4096).decode(errors="replace")
            s.close()
            return int(answer.split(" ")[1])
        # Refused upgrades answer 400: hummingbird-websocket turns the middleware's 401/403 into
        # "no upgrade" (the status a browser never shows a page anyway).
        self.assertEqual(upgrade({"Origin": BOX.origin}), 400)
        self.assertEqual(upgrade({"Origin": BOX.origin, "Cookie": "tactus_token=" + secrets.token_hex(32)}), 400)
        self.assertEqual(upgrade({"Origin": "http://evil.example", "Cookie": "tactus_token=" + TOKEN}), 400)
        self.assertEqual(upgrade({"Cookie": "tactus_token=" + TOKEN}), 400)
        self.assertEqual(upgrade({"Origin": BOX.origin, "Cookie": "tactus_token=" + TOKEN}), 101)

    def test_04_paths_and_uploads(self):
        for path in ("/../etc/passwd", "/api/../api/state", "/%2e%2e/etc/passwd", "/api/sounds/..%2F..%2Fetc/accent.wav"):
            status, _, _ = BOX.request("PUT" if "sounds" in path else "GET", path, raw=b"RIFF", headers=self.auth({"Content-Type": "audio/wav"}))
            self.assertEqual(status, 400, path)
        status, _, _ = BOX.request("PUT", "/api/sounds/x/accent.wav", raw=b"RIFF", headers=self.auth({"Content-Type": "application/octet-stream"}))
        self.assertEqual(status, 415)
        status, err, _ = BOX.request("PUT", "/api/sounds/bad/accent.wav", raw=b"not a wav", headers=self.auth({"Content-Type": "audio/wav"}))
        self.assertEqual(status, 422)
        self.assertIn("accent.wav", err["error"])

        rss_before = BOX.web_rss_mb()
        # 1 GB declared: refused from Content-Length before the body is read.
        s = socket.create_connection(("127.0.0.1", BOX.port), timeout=10)
        head = (f"PUT /api/sounds/big/accent.wav HTTP/1.1\r\nHost: {BOX.host}\r\nAuthorization: Bearer {TOKEN}\r\n"
                f"Origin: {BOX.origin}\r\nContent-Type: audio/wav\r\nContent-Length: 1000000000\r\n\r\n")
        start = time.time()
        s.sendall(head.encode() + b"\0" * 65536)
        s.settimeout(5)
        answer = s.recv(4096)
        took = time.time() - start
        s.close()
        self.assertTrue(answer.startswith(b"HTTP/1.1 413"), answer[:80])
        self.assertLess(took, 2)
        # No length: counted while it streams, stopped past 20 MB.
        s = socket.create_connection(("127.0.0.1", BOX.port), timeout=30)
        s.sendall((f"PUT /api/sounds/big/beat.wav HTTP/1.1\r\nHost: {BOX.host}\r\nAuthorization: Bearer {TOKEN}\r\n"
                   f"Origin: {BOX.origin}\r\nContent-Type: audio/wav\r\nTransfer-Encoding: chunked\r\n\r\n").encode())
        chunk = b"%x\r\n" % (1 << 20) + b"\0" * (1 << 20) + b"\r\n"
        answer = b""
        try:
            for _ in range(1024):
                s.sendall(chunk)
                s.setblocking(False)
                try:
                    answer += s.recv(4096)
                except BlockingIOError:
                    pass
                s.setblocking(True)
                if answer:
                    break
        except (BrokenPipeError, ConnectionResetError):
            pass
        s.settimeout(5)
        try:
            answer += s.recv(4096)
        except (socket.timeout, ConnectionResetError):
            pass
        s.close()
        self.assertTrue(answer.startswith(b"HTTP/1.1 413"), answer[:80])
        rss = BOX.web_rss_mb()
        print(f"\nweb RSS {rss_before:.1f} MB before, {rss:.1f} MB after a refused 1 GB upload and a 20 MB+ stream", file=sys.stderr)
        self.assertLess(rss, 60)
        with open(f"/proc/{BOX.web_pid()}/cmdline", "rb") as f:
            args = f.read().decode().split("\0")
        spool = args[args.index("--spool") + 1]
        self.assertEqual(os.listdir(spool), [])  # nothing left in the spool folder

    def test_09_brute_force_locks_pairing(self):
        statuses = []
        for attempt in range(6):
            status, body, _ = BOX.request("POST", "/api/pair", {"code": "%06d" % attempt}, headers={"Origin": BOX.origin})
            statuses.append(status)
        self.assertEqual(statuses, [403, 403, 403, 403, 429, 429])
        status, body, headers = BOX.request("POST", "/api/pair", {"code": BOX.code}, headers={"Origin": BOX.origin})
        self.assertEqual(status, 429)
        self.assertIn("locked", body["error"])
        self.assertTrue(1 <= int(headers["Retry-After"]) <= 60)

    def test_10_one_line_on_stdout(self):
        BOX.stop()
        self.assertEqual(BOX.rest, b"")  # nothing after the companion's line, even at the end


if __name__ == "__main__":
    unittest.main(verbosity=2)
