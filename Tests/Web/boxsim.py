# SPDX-License-Identifier: GPL-3.0-or-later
"""A real-time simulated box with its companion: `tactus simulate --web` on loopback."""
import http.client, json, os, pty, re, select, signal, socket, struct, subprocess, tempfile, time, wave, math

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def binary(name):
    for folder in (os.environ.get("TACTUS_BIN_DIR"), os.path.join(ROOT, ".build", "debug"), os.path.join(ROOT, ".build", "release")):
        if folder and os.access(os.path.join(folder, name), os.X_OK):
            return os.path.join(folder, name)
    raise RuntimeError(f"{name} is not built: run swift build")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class SimulatedBox:
    """`tactus simulate --headless --realtime --web 127.0.0.1:PORT --control SOCKET`: the box
    on the real clock from a script that only waits; its one line on stdout is the
    companion's address and pairing code."""

    def __init__(self, seconds=3600, after=None, keep_state=True):
        """`after`: a stopped box (stop(keep=True)) whose state folder this one starts from;
        keep_state False: no --state (the box keeps nothing)."""
        self.port = free_port()
        self.folder = tempfile.mkdtemp(prefix="tactus-web-test-")
        self.control = os.path.join(self.folder, "control.sock")
        self.leftovers = []
        # A state folder with some practice behind it (minutes on the last days, local time).
        state = os.path.join(self.folder, "state")
        if after is not None:
            os.rename(os.path.join(after.folder, "state"), state)
            self.leftovers.append(after.folder)
        else:
            os.makedirs(state)
        self.state = state
        self.practice = {time.strftime("%Y-%m-%d", time.localtime(time.time() - 86400 * d)): m
                         for d, m in ((1, 25.5), (2, 40.0), (4, 12.25), (7, 60.0), (9, 33.0))}
        with open(os.path.join(state, "practice.toml"), "a" if after else "w") as f:
            if not after:
                f.write("schema = 1\n\n[minutes]\n" + "".join(f"{day} = {m:.2f}\n" for day, m in sorted(self.practice.items())))
                # Sessions of a song on three days (one heard by the coach); their minutes are in [minutes] above.
                days = sorted(self.practice)
                for day, bpm, coach in ((days[1], 96, ""), (days[2], 104, "hits = 120\nmean-ms = -3.2\nsd-ms = 8.5\nwithin-10ms = 71.7\nwithin-25ms = 98.3\n"),
                                        (days[3], 112, "")):
                    f.write(f'\n[[session]]\nday = "{day}"\nsong = "Etude"\nminutes = 0\nbpm = {bpm}\n{coach}')
        script = os.path.join(self.folder, "idle.txt")
        with open(script, "w") as f:
            f.write(f"{seconds} end\n")
        self.process = subprocess.Popen(
            [binary("tactus"), "simulate", "--headless", "--realtime", "--script", script, "--out", os.path.join(self.folder, "out"),
             "--web", f"127.0.0.1:{self.port}", "--control", self.control] + (["--state", state] if keep_state else []),
            stdout=subprocess.PIPE, stderr=open(os.path.join(self.folder, "stderr.txt"), "wb"))
        ready, _, _ = select.select([self.process.stdout], [], [], 90)
        self.line = self.process.stdout.readline().decode().rstrip("\n") if ready else ""
        m = re.fullmatch(r"web: http://(\S+) pairing code (\d{6})", self.line)
        if not m:
            self.stop()
            raise RuntimeError(f"simulate --web printed {self.line!r}: " + open(os.path.join(self.folder, "stderr.txt")).read()[-2000:])
        self.code = m.group(2)
        self.host = f"127.0.0.1:{self.port}"
        self.origin = f"http://{self.host}"

    def events(self):
        """The simulation's events.jsonl so far (written live in real time)."""
        with open(os.path.join(self.folder, "out", "events.jsonl")) as f:
            return [json.loads(line) for line in f if line.strip()]

    def web_pid(self):
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/cmdline", "rb") as f:
                        args = f.read().split(b"\0")
                except OSError:
                    continue
                if args and args[0].endswith(b"tactus-web") and self.control.encode() in args:
                    return int(entry)
        return None

    def web_rss_mb(self):
        pid = self.web_pid()
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return None

    def ctl(self, *args):
        return subprocess.run([binary("tactus"), "ctl", "--socket", self.control, *args], capture_output=True, text=True, timeout=30)

    def request(self, method, path, body=None, headers=None, raw=None):
        h = {"Host": self.host}
        h.update(headers or {})
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
            h.setdefault("Content-Type", "application/json")
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        c.request(method, path, body=data, headers=h)
        r = c.getresponse()
        text = r.read().decode(errors="replace")
        c.close()
        try:
            payload = json.loads(text)
        except ValueError:
            payload = text
        return r.status, payload, r.headers

    def stop(self, keep=False):
        """Ends the box; keep: its folder stays for a box started `after` it."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.rest = self.process.communicate(timeout=30)[0]
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process is not None and not keep:
            import shutil
            for folder in [self.folder] + self.leftovers:
                shutil.rmtree(folder, ignore_errors=True)
        self.process = None


def wav(path, frequency, seconds=0.05, rate=48000):
    """A short sine click as 16-bit mono PCM."""
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        n = int(seconds * rate)
        w.writeframes(b"".join(struct.pack("<h", int(20000 * math.sin(2 * math.pi * frequency * i / rate) * (1 - i / n))) for i in range(n)))
