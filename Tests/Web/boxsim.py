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
    """`tactus simulate --web 127.0.0.1:PORT --control SOCKET` in real time. The interactive
    simulator needs a terminal, so it gets a pseudo-terminal; its first line of output is
    the companion's address and pairing code."""

    def __init__(self):
        self.port = free_port()
        self.folder = tempfile.mkdtemp(prefix="tactus-web-test-")
        self.control = os.path.join(self.folder, "control.sock")
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execv(binary("tactus"), ["tactus", "simulate", "--web", f"127.0.0.1:{self.port}", "--control", self.control])
        buffer = b""
        deadline = time.time() + 90
        self.line = None
        while time.time() < deadline and self.line is None:
            ready, _, _ = select.select([self.fd], [], [], 0.5)
            if ready:
                try:
                    buffer += os.read(self.fd, 65536)
                except OSError:
                    break
            m = re.search(rb"(web: http://(\S+) pairing code (\d{6}))\r?\n", buffer)
            if m:
                self.line = m.group(1).decode()
                self.code = m.group(3).decode()
        if self.line is None:
            self.stop()
            raise RuntimeError("simulate --web printed no address line: " + buffer[-2000:].decode(errors="replace"))
        self.host = f"127.0.0.1:{self.port}"
        self.origin = f"http://{self.host}"

    def drain(self):
        while True:
            ready, _, _ = select.select([self.fd], [], [], 0)
            if not ready:
                return
            try:
                os.read(self.fd, 65536)
            except OSError:
                return

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

    def box_pid(self):
        return self.pid

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

    def stop(self):
        if self.pid:
            try:
                os.write(self.fd, b"q")
            except OSError:
                pass
            for _ in range(100):
                done, _ = os.waitpid(self.pid, os.WNOHANG)
                if done:
                    break
                self.drain()
                time.sleep(0.1)
            else:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            self.pid = 0
            os.close(self.fd)


def wav(path, frequency, seconds=0.05, rate=48000):
    """A short sine click as 16-bit mono PCM."""
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        n = int(seconds * rate)
        w.writeframes(b"".join(struct.pack("<h", int(20000 * math.sin(2 * math.pi * frequency * i / rate) * (1 - i / n))) for i in range(n)))
