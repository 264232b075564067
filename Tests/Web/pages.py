# SPDX-License-Identifier: GPL-3.0-or-later
"""The companion's pages in headless Chromium under their own Content-Security-Policy (no
bypass): every page at a phone's size (390x844) and a desktop's, with no console error and
nothing wider than the window; the Songs page as a new user tries it; two browsers saving
songs; the practice page of a box that keeps no state. Called by test_companion.py."""
import json, os, re, time

PHONE = (390, 844)
DESKTOP = (1280, 800)
PAGES = {
    # page: what shows once it has loaded
    "play": "document.getElementById('bpm').textContent !== '—'",
    "songs": "document.getElementById('page-songs').dataset.loaded === '1'",
    "sounds": "document.querySelectorAll('#sound-list tr').length > 0",
    "practice": "document.getElementById('practice-total').textContent.includes('minutes')",
    "settings": "document.getElementById('coach-calibration').textContent !== '…' && document.querySelectorAll('#midi-map tr').length > 0",
}
# A song with a tempo ramp and a long label: the fields that were cut on a phone ("120-1").
RAMP = '\n[[song]]\nname = "Ramp Study"\ncount_in = 1\n[[song.section]]\nlabel = "slow build to the chorus"\nbars = 8\ntempo = "120-160"\n'


def launch(p):
    return p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"] if os.geteuid() == 0 else [])


class Tab:
    """A page in its own context, paired by the token's cookie, its console errors collected."""

    def __init__(self, browser, box, token, size):
        self.context = browser.new_context(viewport={"width": size[0], "height": size[1]})
        if token:
            self.context.add_cookies([{"name": "tactus_token", "value": token, "url": box.origin}])
        self.page = self.context.new_page()
        self.errors = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.box = box

    def until(self, js, timeout=15):
        """Polled from here: the pages' CSP (kept on) forbids wait_for_function's string."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.page.evaluate(js):
                return
            time.sleep(0.05)
        said = self.page.evaluate("[...document.querySelectorAll('.msg, .field-msg, .note, .err')].map(e => e.textContent).filter(t => t)")
        raise AssertionError(f"not true within {timeout} s: {js}; the page says {said}; console errors {self.errors}")

    def open(self, name):
        self.page.goto(self.box.origin + ("/pair" if name == "pair" else f"/#{name}"))
        if name != "pair":
            self.until(f"document.getElementById('page-{name}').classList.contains('on')")
            self.until(PAGES[name])
        self.page.wait_for_timeout(300)  # a late error (a blocked style, a failed request) shows by then

    def close(self):
        self.context.close()


def fits(test, tab, name, size):
    """Nothing wider than the window: the page, every field and every plot; no field's text cut."""
    page = tab.page
    width = page.evaluate("window.innerWidth")
    scroll = page.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
    test.assertLessEqual(scroll, width, f"{name} at {size[0]}x{size[1]}: the page is {scroll} px wide")
    wide = page.evaluate("""[...document.querySelectorAll(`section.page.on input, section.page.on select, section.page.on button,
        section.page.on svg, section.page.on table, main .card`)]
        .filter(e => e.getClientRects().length && e.getBoundingClientRect().right > window.innerWidth + 0.5)
        .map(e => (e.id || e.dataset.key || e.tagName) + ' ' + Math.round(e.getBoundingClientRect().right))""")
    test.assertEqual(wide, [], f"{name} at {size[0]}x{size[1]}: past the window's right edge")
    cut = page.evaluate("""[...document.querySelectorAll('section.page.on input:not([type=file]):not([type=range])')]
        .filter(e => e.getClientRects().length && e.value && e.scrollWidth > e.clientWidth + 1)
        .map(e => (e.id || e.dataset.key) + '=' + e.value)""")
    test.assertEqual(cut, [], f"{name} at {size[0]}x{size[1]}: text cut in its field")


def every_page_at_both_sizes(test, box, token, docs):
    from playwright.sync_api import sync_playwright
    status, songs, _ = box.request("GET", "/api/songs", headers={"Authorization": f"Bearer {token}"})
    if "Ramp Study" not in songs["toml"]:
        status, _, _ = box.request("PUT", "/api/songs", {"toml": songs["toml"] + RAMP}, headers={"Authorization": f"Bearer {token}", "Origin": box.origin})
        test.assertEqual(status, 200)
    status, midi, _ = box.request("GET", "/api/midi-map", headers={"Authorization": f"Bearer {token}"})
    if not midi["map"]:  # rows to show as cards
        status, _, _ = box.request("PUT", "/api/midi-map", {"toml": '[midi.map]\n"cc 64 ch 10" = "start-stop"\n"program 4" = "song 2"\n'},
                                   headers={"Authorization": f"Bearer {token}", "Origin": box.origin})
        test.assertEqual(status, 200)
    # The policy: the pages' own files only, never inline script or style.
    for path in ("/", "/pair", "/app.js", "/style.css"):
        status, _, headers = box.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        policy = headers["Content-Security-Policy"] or ""
        test.assertEqual(status, 200, path)
        test.assertIn("default-src 'self'", policy, path)
        test.assertNotIn("unsafe-inline", policy, path)
        test.assertNotIn("unsafe-eval", policy, path)
    share = os.path.join(os.path.dirname(__file__), "..", "..", "share", "web")
    for f in os.listdir(share):
        if f.endswith(".html"):
            with open(os.path.join(share, f)) as page:
                text = page.read()
            test.assertNotRegex(text, r"\sstyle=|<style|<script(?![^>]*\ssrc=)|\son[a-z]+=", f)
    with sync_playwright() as p:
        browser = launch(p)
        try:
            for size in (PHONE, DESKTOP):
                for name in ["pair"] + list(PAGES):
                    tab = Tab(browser, box, None if name == "pair" else token, size)
                    try:
                        started = time.time()
                        tab.open(name)
                        if name == "practice":
                            plots(test, tab, size)
                        if name == "songs":
                            # The ramp's song shown: its tempo and label whole in their fields.
                            tab.page.select_option("#song-pick", label="Ramp Study")
                            tab.until("document.querySelector('#sections input[data-key=tempo]').value === '120-160'")
                        fits(test, tab, name, size)
                        test.assertEqual(tab.errors, [], f"{name} at {size[0]}x{size[1]}: console errors")
                        if size == PHONE:
                            tab.page.screenshot(path=os.path.join(docs, f"phone-{name}.png"), full_page=True)
                        print(f"\n{name} at {size[0]}x{size[1]}: {tab.page.evaluate('document.documentElement.scrollWidth')} px wide,"
                              f" 0 console errors ({time.time() - started:.1f} s)", end="")
                    finally:
                        tab.close()
        finally:
            browser.close()


def plots(test, tab, size):
    """Every bar inside its axes, today's too; the coach's legend in its series' colours."""
    page = tab.page
    outside = page.evaluate("""(() => { const svg = document.getElementById('minutes');
        const axis = svg.querySelector('line').getBoundingClientRect();
        return [...svg.querySelectorAll('rect')].map(r => r.getBoundingClientRect())
          .filter(r => r.left < axis.left - 0.5 || r.right > axis.right + 0.5).length; })()""")
    test.assertEqual(outside, 0, f"practice at {size[0]}: bars past the axis")
    test.assertEqual(page.evaluate("document.querySelectorAll('#minutes rect').length"), 30)
    legend = page.evaluate("""[...document.querySelectorAll('#coach-plot .legend')].map(g =>
        [getComputedStyle(g.querySelector('text')).fill, g.querySelector('rect').getAttribute('fill'), g.querySelector('text').textContent])""")
    test.assertEqual([(fill, text) for fill, _, text in legend], [("rgb(242, 163, 58)", "mean (ms, + late)"), ("rgb(73, 194, 107)", "SD (ms)")])
    test.assertEqual([mark for _, mark, _ in legend], ["#f2a33a", "#49c26b"])
    lines = page.evaluate("[...document.querySelectorAll('#coach-plot polyline, #coach-plot circle')].map(e => e.getAttribute('stroke') || e.getAttribute('fill'))")
    test.assertTrue(set(lines) <= {"#f2a33a", "#49c26b"}, lines)


def colour(tab, selector):
    return tab.page.evaluate(f"getComputedStyle(document.querySelector('{selector}')).color")


GREEN, RED = "rgb(73, 194, 107)", "rgb(255, 107, 107)"


def songs_as_a_new_user(test, box, token):
    """What the new user of issue 32 did, at a phone's size: typed a name and a count-in, added
    a section and a setlist entry (nothing typed lost), saved (no "no [[song]] is named"), got a
    bad field's error in words at the field, imported a klick map (success in green)."""
    from playwright.sync_api import sync_playwright
    auth = {"Authorization": f"Bearer {token}", "Origin": box.origin}
    with sync_playwright() as p:
        browser = launch(p)
        tab = Tab(browser, box, token, PHONE)
        page = tab.page
        try:
            tab.open("songs")
            count = page.evaluate("document.querySelectorAll('#song-pick option').length")
            page.click("#song-new")
            new_name = page.input_value("#song-name")
            test.assertRegex(new_name, r"^Song \d+$")
            # The path: Add to setlist first, then the name typed, then Save.
            page.click("#song-setlist")
            page.fill("#song-name", "Blues in F")
            page.fill("#song-countin", "2")
            page.click("#section-add")
            test.assertEqual((page.input_value("#song-name"), page.input_value("#song-countin")), ("Blues in F", "2"))
            page.fill("#sections tr:nth-child(2) input[data-key=tempo]", "96")
            page.fill("#sections tr:nth-child(2) input[data-key=label]", "out")
            page.click("#song-setlist")  # twice in the setlist: allowed, played twice
            test.assertEqual((page.input_value("#song-name"), page.input_value("#song-countin")), ("Blues in F", "2"))
            test.assertEqual(page.input_value("#sections tr:nth-child(2) input[data-key=tempo]"), "96")
            entries = page.evaluate("[...document.querySelectorAll('#setlist li')].map(li => li.firstChild.textContent.trim())")
            test.assertEqual(entries[-2:], ["Blues in F", "Blues in F"])
            test.assertNotIn(new_name, entries)
            page.click("#song-save")
            tab.until("document.getElementById('songs-error').textContent === 'saved'")
            test.assertEqual(colour(tab, "#songs-error"), GREEN)
            _, songs, _ = box.request("GET", "/api/songs", headers=auth)
            test.assertIn('name = "Blues in F"\ncount_in = 2', songs["toml"])
            test.assertRegex(songs["toml"], r'songs = \[.*"Blues in F", "Blues in F"\]')
            test.assertEqual(page.evaluate("document.querySelectorAll('#song-pick option').length"), count + 1)
            test.assertEqual(page.input_value("#song-name"), "Blues in F")

            # A bad value: the words at the field, no file or line; the field marked.
            page.fill("#sections tr:nth-child(1) input[data-key=meter]", "4/0")
            page.click("#song-save")
            page.wait_for_selector("#sections tr:nth-child(1) input.bad[data-key=meter]")
            message = page.text_content("#songs-error")
            at_field = page.text_content("#sections tr:nth-child(1) .field-msg")
            test.assertTrue(message.startswith('Section 1 of "Blues in F": meter = "4/0" is invalid'), message)
            test.assertIn('meter = "4/0" is invalid', at_field)
            for text in (message, at_field):
                test.assertNotRegex(text, r"\.toml|:\d+:|\[\[", text)
            test.assertEqual(colour(tab, "#songs-error"), RED)
            # The page's own checks, at the field too: an empty name, a name taken.
            page.fill("#sections tr:nth-child(1) input[data-key=meter]", "4/4")
            page.fill("#song-name", "")
            page.click("#song-save")
            page.wait_for_selector("#song-name.bad")
            test.assertEqual(page.text_content("label:has(#song-name) .field-msg"), "give the song a name")
            page.fill("#song-name", "Blues in F")
            page.click("#song-save")
            tab.until("document.getElementById('songs-error').textContent === 'saved'")
            test.assertEqual(page.evaluate("document.querySelectorAll('#page-songs .bad, #page-songs .field-msg:not(#setlist-error)').length"), 0)

            # The import's success is not red.
            page.fill("#klick-name", "Klicked")
            page.fill("#klick-map", "4 4/4 120\n4 4/4 140\n")
            page.click("#klick-import")
            tab.until("document.getElementById('klick-error').textContent.startsWith('imported')")
            test.assertEqual(colour(tab, "#klick-error"), GREEN)
            test.assertEqual(page.input_value("#song-name"), "Klicked")
            page.fill("#klick-map", "4 4/0 120\n")
            page.click("#klick-import")
            tab.until("!document.getElementById('klick-error').textContent.startsWith('imported')")
            test.assertEqual(colour(tab, "#klick-error"), RED)
            fits(test, tab, "songs after editing", PHONE)
        finally:
            tab.close()
            browser.close()


def two_browsers_save_songs(test, box, token):
    """Both load the songs; the first saves; the second's save is refused (412), and its page
    says so and shows the first one's songs. Nothing the first saved is lost."""
    from playwright.sync_api import sync_playwright
    auth = {"Authorization": f"Bearer {token}", "Origin": box.origin}
    with sync_playwright() as p:
        browser = launch(p)
        first, second = Tab(browser, box, token, DESKTOP), Tab(browser, box, token, PHONE)
        try:
            for tab in (first, second):
                tab.open("songs")
                tab.page.select_option("#song-pick", label="Blues in F")
            first.page.fill("#sections tr:nth-child(2) input[data-key=tempo]", "101")
            first.page.click("#song-save")
            first.until("document.getElementById('songs-error').textContent === 'saved'")
            second.page.fill("#sections tr:nth-child(2) input[data-key=tempo]", "77")
            second.page.click("#song-save")
            second.until("document.getElementById('songs-note').textContent !== ''")
            test.assertIn("Someone else changed the songs", second.page.text_content("#songs-note"))
            test.assertNotEqual(second.page.text_content("#songs-error"), "saved")
            test.assertEqual(second.page.input_value("#song-name"), "Blues in F")
            test.assertEqual(second.page.input_value("#sections tr:nth-child(2) input[data-key=tempo]"), "101")
            _, songs, _ = box.request("GET", "/api/songs", headers=auth)
            test.assertIn('tempo = "101"', songs["toml"])
            test.assertNotIn('tempo = "77"', songs["toml"])
            # Made again on theirs, it saves.
            second.page.fill("#sections tr:nth-child(2) input[data-key=tempo]", "77")
            second.page.click("#song-save")
            second.until("document.getElementById('songs-error').textContent === 'saved'")
            _, songs, _ = box.request("GET", "/api/songs", headers=auth)
            test.assertIn('tempo = "77"', songs["toml"])

            # The Play page: the tempo changed by someone else (a script, no If-Match) after the
            # page loaded; the page's + is refused (412), says so and shows theirs.
            first.open("play")
            bpm = int(first.page.text_content("#bpm"))
            status, state, _ = box.request("PATCH", "/api/state", {"bpm": bpm + 10}, headers=auth)
            test.assertEqual(status, 200)
            first.page.click("#plus")
            first.until("document.getElementById('play-error').textContent.startsWith('Someone else changed')")
            test.assertEqual(first.page.text_content("#bpm"), str(bpm + 10))
            test.assertEqual(json.loads(box.ctl("state").stdout)["bpm"], bpm + 10)
            first.page.click("#plus")  # made again on theirs: it goes through
            # (the live view may show the new tempo before the PATCH's own answer clears the message)
            first.until(f"document.getElementById('bpm').textContent === '{bpm + 11}' && document.getElementById('play-error').textContent === ''")
            test.assertEqual(json.loads(box.ctl("state").stdout)["bpm"], bpm + 11)
            box.request("PATCH", "/api/state", {"bpm": bpm}, headers=auth)
        finally:
            first.close()
            second.close()
            browser.close()


def voice_sets_are_built_in(test, box, token):
    """Sets the box comes with (its own and the installed voice sets) say so; no Delete."""
    from playwright.sync_api import sync_playwright
    auth = {"Authorization": f"Bearer {token}", "Origin": box.origin}
    _, sounds, _ = box.request("GET", "/api/sounds", headers=auth)
    voices = [n for n in sounds["sounds"] if n.startswith("voice-")]
    for name in voices:
        test.assertIn(name, sounds["built_in"])
        status, err, _ = box.request("DELETE", f"/api/sounds/{name}", headers=auth)
        test.assertEqual((status, err["error"]), (409, f"{name} is built in and cannot be deleted"))
    with sync_playwright() as p:
        browser = launch(p)
        tab = Tab(browser, box, token, PHONE)
        try:
            tab.open("sounds")
            rows = tab.page.evaluate("""[...document.querySelectorAll('#sound-list tr')].map(tr => [tr.cells[0].textContent.replace('  (playing)', ''),
                [...tr.querySelectorAll('button')].map(b => b.textContent), tr.querySelector('.tag') ? tr.querySelector('.tag').textContent : ''])""")
            test.assertEqual(sorted(r[0] for r in rows), sorted(sounds["sounds"]))
            for name, buttons, tag in rows:
                built_in = name in sounds["built_in"]
                test.assertEqual((buttons, tag), (["Choose"], "built in") if built_in else (["Choose", "Delete"], ""), name)
        finally:
            tab.close()
            browser.close()
    print(f"\nsounds: {len(sounds['built_in'])} built in ({', '.join(voices) or 'no voice set installed: make voices'}), no Delete", end="")


def practice_without_state(test):
    """A box run without a state folder (`simulate` without --state): the page says why it is empty."""
    from playwright.sync_api import sync_playwright
    from boxsim import SimulatedBox
    box = SimulatedBox(keep_state=False)
    try:
        status, paired, _ = box.request("POST", "/api/pair", {"code": box.code})
        test.assertEqual(status, 200, paired)
        status, practice, _ = box.request("GET", "/api/practice", headers={"Authorization": "Bearer " + paired["token"]})
        test.assertEqual((status, practice), (200, {"minutes": {}, "sessions": [], "kept": False}))
        with sync_playwright() as p:
            browser = launch(p)
            tab = Tab(browser, box, paired["token"], PHONE)
            try:
                tab.open("practice")
                why = tab.page.text_content("#practice-why")
                test.assertIn("keeps no practice log", why)
                test.assertIn("without --state", why)
                test.assertEqual(tab.errors, [])
                fits(test, tab, "practice (no state)", PHONE)
            finally:
                tab.close()
                browser.close()
    finally:
        box.stop()
