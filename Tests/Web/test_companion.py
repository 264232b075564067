# SPDX-License-Identifier: GPL-3.0-or-later
"""The companion against a real tactus-web and a real-time simulated box (README "Companion").

Security and API over real HTTP, the control socket through `tactus ctl`, and the pages in
headless Chromium (Debian's chromium driven by Playwright, no browser download)."""
import base64, json, os, secrets, select, signal, socket, subprocess, sys, time, unittest
sys.path.insert(0, os.path.dirname(__file__))
from boxsim import SimulatedBox, binary, wav, ROOT
import pages

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


def prioritise_descendants(nice=-20):
    """Every thread of this test's descendants (the browser, the box, tactus-web) at `nice`, as a
    phone gives its foreground app the CPU first: on a two-core host shared with builds (load
    15 and more) a renderer at normal priority is preempted for 15 ms and more now and then,
    which is the host's doing, not the page's. Root only; says so otherwise."""
    if os.geteuid() != 0:
        print("\nlive view: not root, the browser keeps its normal priority (a busy host may delay a beat)", file=sys.stderr)
        return
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    children.setdefault(int(f.read().rsplit(")", 1)[1].split()[1]), []).append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    todo, count = [os.getpid()], 0
    while todo:
        for child in children.get(todo.pop(), []):
            todo.append(child)
            for task in os.listdir(f"/proc/{child}/task") if os.path.isdir(f"/proc/{child}/task") else []:
                try:
                    os.setpriority(os.PRIO_PROCESS, int(task), nice)
                    count += 1
                except OSError:
                    pass
    print(f"\nlive view: {count} threads of the browser, the box and tactus-web at nice {nice}", file=sys.stderr)


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

            # Live beats: after the page's first clock sync, every beat it was told of ahead is drawn
            # within 10 ms of the box's heard click. The page's CLOCK_MONOTONIC map is its own (pings over the
            # socket); the truth here is measured from outside: performance.now() read between two
            # CLOCK_MONOTONIC readings of this process, the tightest pair of 40 (Chromium's
            # performance.now() counts CLOCK_MONOTONIC from its time origin).
            page.wait_for_function("window.tactusClock.synced", timeout=20000)
            prioritise_descendants()
            page.evaluate("window.tactusBeats.length = 0")
            page.click("#startstop")
            # A window is 24 consecutive beats. A host starved by other work (two cores shared with
            # builds) now and then stops the browser for tens of ms even at nice -20; then one more
            # window is taken (at most three), and every beat of one window must be within 10 ms.
            for window in range(3):
                if window:
                    page.evaluate("window.tactusBeats.length = 0")
                page.wait_for_function("window.tactusBeats.length >= 24", timeout=40000)
                beats = page.evaluate("window.tactusBeats.slice(0, 24)")
                pairs = []
                for _ in range(40):
                    t0 = monotonic_ns()
                    perf = page.evaluate("performance.now()")
                    t1 = monotonic_ns()
                    pairs.append((t1 - t0, (t0 + t1) / 2 - perf * 1e6))
                bracket, true_offset = min(pairs)
                def error(b):
                    return abs(b["shownMs"] * 1e6 + true_offset - b["ns"]) / 1e6
                # With a live view open the box places START's downbeat 40 ms ahead and announces
                # its grid's beats up to 0.5 s ahead: the first beat too is planned, not news.
                if window == 0:
                    first = error(beats[0])
                    self.assertEqual((beats[0]["bar"], beats[0]["beat"]), (0, 0))
                    self.assertNotEqual(beats[0]["how"], "late news")
                errors = sorted(error(b) for b in beats[1:])
                mapped = page.evaluate("window.tactusClock.offset") * 1e6
                p99 = errors[min(len(errors) - 1, int(len(errors) * 0.99))]
                print(f"\nlive view window {window + 1}: {len(errors)} beats{' after the first' if window == 0 else ''},"
                      f" median {errors[len(errors)//2]:.2f} ms, p99 {p99:.2f} ms, max {errors[-1]:.2f} ms from the heard click"
                      f"{f' (the first after START {first:.2f} ms)' if window == 0 else ''};"
                      f" the page's clock map {(mapped - true_offset)/1e6:+.2f} ms off"
                      f" (truth within +-{bracket/2e6:.2f} ms; load {os.getloadavg()[0]:.1f})", file=sys.stderr)
                for b in beats:  # the ones that took more than 2 ms, and why
                    if error(b) > 2:
                        print(f"  bar {b['bar']} beat {b['beat']}: {(b['shownMs'] * 1e6 + true_offset - b['ns']) / 1e6:+.2f} ms ({b['how']};"
                              f" planned {(b['plannedNs'] - b['ns']) / 1e6:+.2f} ms from the heard click)", file=sys.stderr)
                self.assertLess(abs(mapped - true_offset), 2e6)
                if errors[-1] < 10.0:
                    break
            self.assertLess(first, 10.0)
            self.assertLess(errors[-1], 10.0, errors)
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

            # Issue 29: the page computes no instrument rule. TAP posts each tap to the box, which
            # times it with its own tap-tempo rule; the page never sends a tempo of its own.
            sent = []
            page.on("request", lambda r: sent.append((r.method, r.url.replace(BOX.origin, ""))) if "/api/" in r.url else None)
            for _ in range(4):
                page.click("#tap")
                time.sleep(0.4)
            page.wait_for_function("document.getElementById('bpm').textContent !== '121'")
            self.assertEqual(sent, [("POST", "/api/tap")] * 4)
            tapped = json.loads(BOX.ctl("state").stdout)["bpm"]
            self.assertTrue(130 <= tapped <= 175, tapped)  # 400 ms taps: 150 BPM, give or take the host
            self.assertEqual(page.text_content("#bpm"), str(tapped))
            # The beat boxes are the box's beats of the bar: 6/8 in dotted quarters has 2, in eighths 6.
            BOX.request("PATCH", "/api/state", {"meter": "6/8", "beat_unit": "1/4."}, headers=self.auth())
            page.wait_for_function("document.getElementById('beats').children.length === 2")
            BOX.request("PATCH", "/api/state", {"meter": "6/8"}, headers=self.auth())
            page.wait_for_function("document.getElementById('beats').children.length === 6")
            BOX.request("PATCH", "/api/state", {"meter": "4/4", "bpm": 121}, headers=self.auth())
            page.wait_for_function("document.getElementById('beats').children.length === 4")

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
            # Each stretch of playing is a session: the song played above, at its tempo, is in the log.
            self.assertIn({"day": time.strftime("%Y-%m-%d"), "song": "Web Song", "bpm": 150},
                          [{k: e[k] for k in ("day", "song", "bpm")} for e in practice["sessions"]])
            etude = [e for e in practice["sessions"] if e["song"] == "Etude"]
            self.assertEqual([e["bpm"] for e in etude], [96, 104, 112])
            self.assertEqual({k: etude[1][k] for k in ("hits", "mean_ms", "sd_ms", "within_10ms", "within_25ms")},
                             {"hits": 120, "mean_ms": -3.2, "sd_ms": 8.5, "within_10ms": 71.7, "within_25ms": 98.3})
            # Tempo per song: a line with a dot per day for Etude, one dot for Web Song (today).
            self.assertGreaterEqual(page.evaluate("document.querySelectorAll('#tempo-plot circle').length"), 4)
            self.assertIn("Etude", page.text_content("#tempo-plot"))
            self.assertEqual(page.evaluate("document.querySelectorAll('#tempo-plot polyline').length"), 1)
            # The coach's figures: the one session that carries them (mean and SD).
            self.assertEqual(page.evaluate("document.querySelectorAll('#coach-plot circle').length"), 2)
            self.assertIn("120 hits, mean -3.2 ms, SD 8.5 ms, within 10 ms 71.7 %", page.text_content("#coach-note"))
            page.screenshot(path=os.path.join(DOCS, "practice.png"), full_page=True)
            page.goto(BOX.origin + "/#settings")
            page.wait_for_selector("#pref-momentum")
            page.select_option("#pref-momentum", "off")
            page.wait_for_timeout(500)
            status, prefs, _ = BOX.request("GET", "/api/preferences", headers=self.auth())
            self.assertFalse(prefs["momentum"])
            # Link start/stop and the tone through the box; a bad value at its field, in the file's words.
            page.select_option("#pref-link_start_stop_sync", "on")
            page.fill("#pref-tone_a4", "500")
            page.dispatch_event("#pref-tone_a4", "change")
            page.wait_for_selector("#pref-tone_a4.bad")
            self.assertEqual(page.text_content("#prefs-error"), "tone_a4 = 500 is invalid: allowed a whole number from 415 to 466")
            page.fill("#pref-tone_a4", "442")
            page.dispatch_event("#pref-tone_a4", "change")
            page.wait_for_function("document.getElementById('prefs-error').textContent === ''")  # set once the box answered
            status, prefs, _ = BOX.request("GET", "/api/preferences", headers=self.auth())
            self.assertEqual((prefs["link_start_stop_sync"], prefs["tone_a4"], prefs["sync"]), (True, 442, "internal"))
            status, err, _ = BOX.request("PATCH", "/api/preferences", {"sync": "ptp"}, headers=self.auth())
            self.assertEqual((status, err), (422, {"error": 'sync = "ptp" is invalid: allowed "internal", "midi", "link"', "field": "sync"}))
            # Screen and footswitch on their own card.
            self.assertEqual(page.evaluate("[...document.querySelectorAll('#screen-prefs select, #screen-prefs input')].map(e => e.id)"),
                             ["pref-screen_dim_seconds", "pref-footswitch"])
            page.select_option("#pref-footswitch", "tap")
            page.wait_for_function("document.getElementById('prefs-error').textContent === ''")
            page.wait_for_timeout(300)
            self.assertEqual(BOX.request("GET", "/api/preferences", headers=self.auth())[1]["footswitch"], "tap")
            self.midi_map_page(page)
            self.coach_calibration_card(page)
            page.screenshot(path=os.path.join(DOCS, "settings.png"), full_page=True)
            size = sum(os.path.getsize(os.path.join(ROOT, "share", "web", f)) for f in os.listdir(os.path.join(ROOT, "share", "web")))
            self.assertLess(size, 150 * 1024)
            browser.close()

    def coach_calibration_card(self, page):
        """Menu > Coach > Calibrate from the Settings page: this simulated box has no take (no
        coach input), so the card says how to get one, the button is off and the API says 409."""
        page.wait_for_function("document.getElementById('coach-calibration').textContent.includes('no coach input')")
        self.assertTrue(page.is_disabled("#coach-calibrate"))
        status, coach, _ = BOX.request("GET", "/api/coach", headers=self.auth())
        self.assertEqual((status, coach), (200, {"input": False, "calibrating": False, "round_trip_ms": None, "click_gain_db": None, "last": None}))
        status, err, _ = BOX.request("POST", "/api/coach/calibrate", {}, headers=self.auth())
        self.assertEqual((status, err["error"]), (409, "the coach has no audio input: set [coach] input in the configuration file (README Coach)"))
        self.assertFalse(json.loads(BOX.ctl("send", '{"cmd":"coach"}').stdout)["coach"]["calibrating"])

    def midi_map_page(self, page):
        """The MIDI map on Settings: rows written as [midi.map], checked by the box's reader, the
        error at its row in the reader's words, saved by the box in its settings file."""
        self.assertIn("configuration file", page.text_content("#midi-source"))
        self.assertEqual(page.evaluate("document.querySelectorAll('#midi-map tr').length"), 0)
        page.click("#midi-add")
        page.click("#midi-add")
        page.click("#midi-add")
        row = lambda n, key: f"#midi-map tr:nth-child({n}) [data-key={key}]"
        page.select_option(row(1, "kind"), "cc")
        page.fill(row(1, "number"), "64")
        page.select_option(row(1, "channel"), "10")
        page.select_option(row(1, "control"), "start-stop")
        page.fill(row(2, "number"), "200")  # note 200: out of range
        page.select_option(row(3, "kind"), "program")
        page.fill(row(3, "number"), "4")
        page.select_option(row(3, "control"), "song")
        page.fill(row(3, "n"), "2")
        page.click("#midi-save")
        page.wait_for_selector(row(2, "number") + ".bad")
        self.assertEqual(page.text_content("#midi-error"), 'midi-map.toml:3: midi.map."note 200" = "tap" is invalid: keys are "note N", '
                         '"cc N" or "program N" (N 0-127), optionally followed by "ch C" (1-16)')
        self.assertEqual(page.evaluate("document.querySelectorAll('#midi-map tr:nth-child(1) .bad').length"), 0)
        self.assertEqual(json.loads(BOX.ctl("send", '{"cmd":"midi-map"}').stdout)["source"], "configuration")
        page.fill(row(2, "number"), "36")
        page.click("#midi-save")
        page.wait_for_function("document.getElementById('midi-error').textContent === 'saved'")
        self.assertIn("kept by the box", page.text_content("#midi-source"))
        answer = json.loads(BOX.ctl("send", '{"cmd":"midi-map"}').stdout)
        self.assertEqual((answer["source"], answer["map"]), ("box", [{"message": "cc 64 ch 10", "control": "start-stop"},
                                                                    {"message": "note 36", "control": "tap"},
                                                                    {"message": "program 4", "control": "song 2"}]))
        # Over HTTP: the same reader's words with the line and key; a body that is no map, 400.
        status, err, _ = BOX.request("PUT", "/api/midi-map", {"toml": '[midi.map]\n"cc 1" = "dance"\n'}, headers=self.auth())
        self.assertEqual((status, err["line"], err["field"]), (422, 2, 'midi.map."cc 1"'))
        self.assertTrue(err["error"].startswith('midi-map.toml:2: midi.map."cc 1" = "dance" is invalid: allowed "tap", "start-stop"'), err)
        status, _, _ = BOX.request("PUT", "/api/midi-map", {"map": []}, headers=self.auth())
        self.assertEqual(status, 400)
        status, got, _ = BOX.request("GET", "/api/midi-map", headers=self.auth())
        self.assertEqual((status, got["source"], len(got["map"])), (200, "box", 3))
        self.assertTrue(got["toml"].endswith('[midi.map]\n"cc 64 ch 10" = "start-stop"\n"note 36" = "tap"\n"program 4" = "song 2"\n'), got["toml"])
        # Kept in the box's settings file (written a moment after the change).
        deadline = time.time() + 10
        while time.time() < deadline:
            with open(os.path.join(BOX.state, "settings.toml")) if os.path.exists(os.path.join(BOX.state, "settings.toml")) else open(os.devnull) as f:
                text = f.read()
            if '"program 4" = "song 2"' in text:
                break
            time.sleep(0.2)
        self.assertIn('[midi.map]\n"cc 64 ch 10" = "start-stop"\n"note 36" = "tap"\n"program 4" = "song 2"\n', text)
        # Back to the configuration's (none here), and the edited map once more for the screenshot.
        page.click("#midi-reset")
        page.wait_for_function("document.querySelectorAll('#midi-map tr').length === 0")
        self.assertEqual(json.loads(BOX.ctl("send", '{"cmd":"midi-map"}').stdout)["source"], "configuration")
        status, _, _ = BOX.request("PUT", "/api/midi-map", {"toml": answer["toml"]}, headers=self.auth())
        self.assertEqual(status, 200)
        page.reload()
        page.wait_for_function("document.querySelectorAll('#midi-map tr').length === 3")

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
        # A script sends no Origin (browsers always do): its token and JSON body are enough.
        status, state, _ = BOX.request("PATCH", "/api/state", {"bpm": 101}, headers={"Cookie": "tactus_token=" + TOKEN})
        self.assertEqual((status, state["bpm"]), (200, 101))
        status, state, _ = BOX.request("PATCH", "/api/state", {"bpm": 102}, headers={"Authorization": "Bearer " + TOKEN})
        self.assertEqual((status, state["bpm"]), (200, 102))
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
        status, err, _ = BOX.request("POST", "/api/transport", {"playing": "yes"}, headers=self.auth())
        self.assertEqual((status, err), (422, {"error": 'playing = "yes" is invalid: allowed true or false', "field": "playing"}))
        status, err, _ = BOX.request("PATCH", "/api/state", {"mode": "dance"}, headers=self.auth())
        self.assertEqual((status, err["field"]), (422, "mode"))
        self.assertTrue(err["error"].startswith('mode = "dance" is invalid: not settable: allowed bpm, meter'), err)
        # The whole state read back, one field changed: the unchanged others are passed over.
        status, state, _ = BOX.request("GET", "/api/state", headers=self.auth())
        state["bpm"] = 134
        status, state, _ = BOX.request("PATCH", "/api/state", state, headers=self.auth())
        self.assertEqual((status, state["bpm"]), (200, 134))
        status, err, _ = BOX.request("PATCH", "/api/preferences", {"companion": False}, headers=self.auth())
        self.assertEqual(status, 422)  # switched at the box only

    def test_02a_every_page_at_phone_and_desktop_size(self):
        # Under the pages' own CSP (no bypass): 0 console errors, nothing wider than the window;
        # a screenshot of each page at 390x844 (docs/companion/phone-NAME.png).
        self.assertIsNotNone(TOKEN, "pairing failed")
        pages.every_page_at_both_sizes(self, BOX, TOKEN, DOCS)

    def test_02b_songs_page_as_a_new_user_and_two_browsers(self):
        self.assertIsNotNone(TOKEN, "pairing failed")
        pages.songs_as_a_new_user(self, BOX, TOKEN)
        pages.two_browsers_save_songs(self, BOX, TOKEN)

    def test_02c_built_in_sets_and_a_box_without_state(self):
        self.assertIsNotNone(TOKEN, "pairing failed")
        pages.voice_sets_are_built_in(self, BOX, TOKEN)
        pages.practice_without_state(self)

    def test_03_websocket_upgrade_checks_token_and_origin(self):
        def upgrade(headers, host=None):
            s = socket.create_connection(("127.0.0.1", BOX.port), timeout=10)
            key = base64.b64encode(os.urandom(16)).decode()
            lines = [f"GET /ws HTTP/1.1", f"Host: {host or BOX.host}", "Upgrade: websocket", "Connection: Upgrade",
                     f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"] + [f"{k}: {v}" for k, v in headers.items()]
            s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
            answer = s.recv(4096).decode(errors="replace")
            s.close()
            return int(answer.split(" ")[1])
        # Checked before upgrading, answered as the HTTP API answers: 401 with no token or one the
        # box does not know (another box's), 403 for a foreign Origin or Host.
        self.assertEqual(upgrade({"Origin": BOX.origin}), 401)
        self.assertEqual(upgrade({"Origin": BOX.origin, "Cookie": "tactus_token=" + secrets.token_hex(32)}), 401)
        self.assertEqual(upgrade({"Origin": BOX.origin, "Authorization": "Bearer " + secrets.token_hex(32)}), 401)
        self.assertEqual(upgrade({"Origin": "http://evil.example", "Cookie": "tactus_token=" + TOKEN}), 403)
        self.assertEqual(upgrade({"Cookie": "tactus_token=" + TOKEN}), 101)  # a script's upgrade, no Origin
        self.assertEqual(upgrade({"Origin": "http://evil.example:%d" % BOX.port, "Cookie": "tactus_token=" + TOKEN},
                                 host="evil.example:%d" % BOX.port), 403)  # DNS rebinding
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

    def test_05_pairing_survives_restarts_and_revoking_ends_it(self):
        global BOX
        self.assertIsNotNone(TOKEN, "pairing failed")
        def state_status(box):
            return box.request("GET", "/api/state", headers={"Authorization": "Bearer " + TOKEN})[0]
        # tactus-web restarted: it keeps nothing; the box still knows the token's hash.
        old = BOX.web_pid()
        os.kill(old, signal.SIGTERM)
        deadline = time.time() + 10
        while BOX.web_pid() == old and time.time() < deadline:
            time.sleep(0.05)
        spool = os.path.join(BOX.folder, "spool2")
        os.makedirs(spool)
        web = subprocess.Popen([binary("tactus-web"), "--control", BOX.control, "--spool", spool, "--log-level", "warning", "--once"],
                               stdout=subprocess.PIPE)
        try:
            ready, _, _ = select.select([web.stdout], [], [], 60)
            self.assertTrue(ready and web.stdout.readline().startswith(b"tactus-web: listening"))
            self.assertEqual(state_status(BOX), 200)
        finally:
            web.terminate()
            web.wait(timeout=30)
        # The box restarted from its state folder: the paired browser is in its settings.toml.
        with open(os.path.join(BOX.state, "settings.toml")) as f:
            saved = f.read()
        self.assertIn("[[browser]]", saved)
        self.assertNotIn(TOKEN, saved)
        BOX.stop(keep=True)
        BOX = SimulatedBox(after=BOX)
        self.assertEqual(state_status(BOX), 200)
        listed = json.loads(BOX.ctl("browsers").stdout)
        self.assertEqual([b["id"] for b in listed], [1])
        # A live view open at that moment.
        live = socket.create_connection(("127.0.0.1", BOX.port), timeout=10)
        live.sendall((f"GET /ws HTTP/1.1\r\nHost: {BOX.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\nSec-WebSocket-Version: 13\r\n"
                      f"Origin: {BOX.origin}\r\nAuthorization: Bearer {TOKEN}\r\n\r\n").encode())
        self.assertTrue(live.recv(4096).startswith(b"HTTP/1.1 101"))
        # Revoked at the box: 401 from then on, and the open live view ends within 5 s.
        revoked = BOX.ctl("revoke", "1")
        revoked_at = time.time()
        self.assertEqual(revoked.returncode, 0, revoked.stderr)
        self.assertEqual(state_status(BOX), 401)
        live.settimeout(15)
        try:
            while live.recv(65536):
                pass
        except ConnectionResetError:
            pass
        live.close()
        self.assertLess(time.time() - revoked_at, 8)
        self.assertEqual(json.loads(BOX.ctl("browsers").stdout), [])

    def test_06_plain_tactus_ctl_reaches_a_simulated_box(self):
        # No --control: `simulate --web` serves where `tactus ctl` looks by default
        # (/run/tactus/control.sock, or /tmp/tactus-UID/control.sock for a user who cannot write /run/tactus).
        from boxsim import free_port
        import tempfile, shutil
        for path in ("/run/tactus/control.sock", f"/tmp/tactus-{os.getuid()}/control.sock"):
            try:
                with socket.socket(socket.AF_UNIX) as probe:
                    probe.connect(path)
                self.skipTest(f"SKIPPED: a box or another simulation already serves {path}; `tactus ctl` would reach that one")
            except OSError:
                pass
        folder = tempfile.mkdtemp(prefix="tactus-ctl-test-")
        try:
            with open(os.path.join(folder, "idle.txt"), "w") as f:
                f.write("120 end\n")
            port = free_port()
            sockets = [p for p in ("/run/tactus/control.sock", f"/tmp/tactus-{os.getuid()}/control.sock") if not os.path.exists(p)]
            import glob
            scratch = set(glob.glob("/tmp/tactus-realtime-*"))
            # No --out either: in real time the outputs go to a private folder removed at the end.
            box = subprocess.Popen([binary("tactus"), "simulate", "--headless", "--realtime", "--script", os.path.join(folder, "idle.txt"),
                                    "--web", f"127.0.0.1:{port}"],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            try:
                ready, _, _ = select.select([box.stdout], [], [], 90)
                line = box.stdout.readline().decode() if ready else ""
                self.assertRegex(line, r"^web: http://127\.0\.0\.1:%d pairing code \d{6}\n$" % port)
                ctl = lambda *a: subprocess.run([binary("tactus"), "ctl", *a], capture_output=True, text=True, timeout=30)
                state = ctl("state")
                self.assertEqual(state.returncode, 0, state.stderr)
                self.assertEqual(json.loads(state.stdout)["bpm"], 120)
                changed = ctl("set", "bpm=132")
                self.assertEqual((changed.returncode, json.loads(changed.stdout)["bpm"]), (0, 132), changed.stderr)
                bad = ctl("set", "bpm=1000")
                self.assertEqual((bad.returncode, bad.stderr), (2, "tactus: error: bpm = 1000 is invalid: allowed 1 to 999, at most 3 decimals\n"))
            finally:
                box.send_signal(signal.SIGTERM)
                box.communicate(timeout=30)
            # The socket goes with the simulation.
            for path in sockets:
                self.assertFalse(os.path.exists(path), path)
            self.assertEqual(set(glob.glob("/tmp/tactus-realtime-*")), scratch)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def test_08_a_script_pairs_as_the_readme_shows(self):
        # As `requests.post(URL + "/api/pair", json={"code": CODE})` sends it: no Origin, no cookie.
        status, body, headers = BOX.request("POST", "/api/pair", {"code": BOX.code})
        self.assertEqual(status, 200, body)
        self.assertRegex(body["token"], r"^[0-9a-f]{64}$")  # 256 random bits
        self.assertEqual(headers["Set-Cookie"], f"tactus_token={body['token']}; HttpOnly; SameSite=Strict; Path=/")
        status, state, _ = BOX.request("GET", "/api/state", headers={"Authorization": "Bearer " + body["token"]})
        self.assertEqual(status, 200)
        self.assertEqual(set(state), set(json.loads(BOX.ctl("state").stdout)))
        # The same code pairs another client within its 60 s, with its own token.
        status, other, _ = BOX.request("POST", "/api/pair", {"code": BOX.code})
        self.assertEqual(status, 200, other)
        self.assertNotEqual((other["token"], other["browser"]), (body["token"], body["browser"]))
        status, state, _ = BOX.request("POST", "/api/transport", {"playing": False}, headers={"Cookie": "tactus_token=" + body["token"]})
        self.assertEqual((status, state["playing"]), (200, False))
        # A script's live view: /ws with the Bearer token and no Origin; each beat has its bar, beat and
        # the CLOCK_MONOTONIC time its click is heard (ns; mono in seconds, as the box's onset events).
        live = socket.create_connection(("127.0.0.1", BOX.port), timeout=10)
        live.sendall((f"GET /ws HTTP/1.1\r\nHost: {BOX.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\nSec-WebSocket-Version: 13\r\n"
                      f"Authorization: Bearer {body['token']}\r\n\r\n").encode())
        data = b""
        while b"\r\n\r\n" not in data:
            data += live.recv(4096)
        head, data = data.split(b"\r\n\r\n", 1)
        self.assertTrue(head.startswith(b"HTTP/1.1 101"), head)
        BOX.request("POST", "/api/transport", {"playing": True}, headers={"Authorization": "Bearer " + body["token"]})
        beats = []
        while len(beats) < 4:
            while len(data) < 2 or len(data) < 2 + (data[1] & 127 if data[1] & 127 < 126 else 0) or ((data[1] & 127) == 126 and len(data) < 4):
                data += live.recv(65536)
            length, start = data[1] & 127, 2
            if length == 126:
                length, start = int.from_bytes(data[2:4], "big"), 4
            while len(data) < start + length:
                data += live.recv(65536)
            message, data = json.loads(data[start:start + length]), data[start + length:]
            if message["type"] == "beat":
                beats.append(message)
        live.close()
        BOX.request("POST", "/api/transport", {"playing": False}, headers={"Authorization": "Bearer " + body["token"]})
        time.sleep(0.3)  # the simulation writes a line once nothing earlier can come (20 ms)
        onsets = {(e["bar"], e["beat"]): e["mono"] for e in BOX.events() if e["type"] == "onset" and e["layer"] == 0 and e["mono"] >= beats[0]["mono"] - 0.001}
        for b in beats:
            self.assertEqual(b["mono"], round(b["ns"] / 1e9, 6))
            self.assertAlmostEqual(onsets[(b["bar"], b["beat"])], b["mono"], delta=0.0000015)

    def test_09_brute_force_locks_pairing(self):
        statuses = []
        for attempt in range(6):
            status, body, _ = BOX.request("POST", "/api/pair", {"code": "%06d" % attempt}, headers={"Origin": BOX.origin})
            statuses.append(status)
        # 5 wrong codes are answered as wrong codes; they lock pairing from then on.
        self.assertEqual(statuses, [403, 403, 403, 403, 403, 429])
        self.assertIn("locked", body["error"])
        status, body, headers = BOX.request("POST", "/api/pair", {"code": BOX.code}, headers={"Origin": BOX.origin})
        self.assertEqual(status, 429)
        self.assertIn("locked", body["error"])
        self.assertTrue(1 <= int(headers["Retry-After"]) <= 60)

    def test_10_one_line_on_stdout(self):
        BOX.stop()
        self.assertEqual(BOX.rest, b"")  # nothing after the companion's line, even at the end


if __name__ == "__main__":
    unittest.main(verbosity=2)
