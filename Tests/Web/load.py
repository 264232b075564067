# SPDX-License-Identifier: GPL-3.0-or-later
"""`make bench`: 20 live-view clients and 200 requests a second for 30 s on loopback against a
real tactus-web and a real-time simulated box that plays at 240 BPM. Prints and checks: every
client got every beat (nothing lost), every request answered 200, the web process under 60 MB
RSS, and the box's clicks on time (its onset events 0.25 s apart to the microsecond)."""
import base64, json, os, socket, sys, threading, time
sys.path.insert(0, os.path.dirname(__file__))
from boxsim import SimulatedBox

SECONDS = float(os.environ.get("TACTUS_WEB_LOAD_SECONDS", "30"))


def websocket(box, token, counts, index, stop):
    s = socket.create_connection(("127.0.0.1", box.port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /ws HTTP/1.1\r\nHost: {box.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
               f"Sec-WebSocket-Version: 13\r\nOrigin: {box.origin}\r\nCookie: tactus_token={token}\r\n\r\n").encode())
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        buffer += s.recv(4096)
    buffer = buffer.split(b"\r\n\r\n", 1)[1]
    s.settimeout(0.5)
    beats = []
    while not stop.is_set():
        try:
            chunk = s.recv(65536)
            if not chunk:
                break
            buffer += chunk
        except socket.timeout:
            continue
        while len(buffer) >= 2:
            length = buffer[1] & 0x7F
            offset = 2
            if length == 126:
                length, offset = int.from_bytes(buffer[2:4], "big"), 4
            elif length == 127:
                length, offset = int.from_bytes(buffer[2:10], "big"), 10
            if len(buffer) < offset + length:
                break
            payload, buffer = buffer[offset:offset + length], buffer[offset + length:]
            try:
                message = json.loads(payload)
            except ValueError:
                continue
            if message.get("type") == "beat":
                beats.append((message["bar"], message["beat"], message["ns"]))
    counts[index] = beats
    s.close()


def main():
    box = SimulatedBox(seconds=SECONDS + 60)
    try:
        status, body, _ = box.request("POST", "/api/pair", {"code": box.code}, headers={"Origin": box.origin})
        token = body["token"]
        auth = {"Authorization": f"Bearer {token}", "Origin": box.origin}
        box.request("PATCH", "/api/state", {"bpm": 240}, headers=auth)
        stop = threading.Event()
        counts = [None] * 20
        clients = [threading.Thread(target=websocket, args=(box, token, counts, i, stop)) for i in range(20)]
        for c in clients:
            c.start()
        time.sleep(1)
        box.request("POST", "/api/transport", {"playing": True}, headers=auth)
        started = time.clock_gettime(time.CLOCK_MONOTONIC)
        # 200 requests a second from 4 connections (a browser opens several), each paced at 50/s.
        import http.client
        results = {"answered": 0, "failed": 0}
        rss = []
        lock = threading.Lock()
        end = time.time() + SECONDS

        def requester(worker):
            connection = http.client.HTTPConnection("127.0.0.1", box.port, timeout=10)
            next_at = time.time() + worker / 200
            while time.time() < end:
                connection.request("GET", "/api/state", headers={"Host": box.host, **auth})
                r = connection.getresponse()
                r.read()
                with lock:
                    results["answered" if r.status == 200 else "failed"] += 1
                next_at += 4 / 200
                delay = next_at - time.time()
                if delay > 0:
                    time.sleep(delay)

        workers = [threading.Thread(target=requester, args=(w,)) for w in range(4)]
        for w in workers:
            w.start()
        while time.time() < end:
            rss.append(box.web_rss_mb())
            time.sleep(1)
        for w in workers:
            w.join()
        answered, failed = results["answered"], results["failed"]
        took = time.time() - (end - SECONDS)
        box.request("POST", "/api/transport", {"playing": False}, headers=auth)
        stopped = time.clock_gettime(time.CLOCK_MONOTONIC)
        time.sleep(1)
        stop.set()
        for c in clients:
            c.join()
        onsets = [e for e in box.events() if e["type"] == "onset" and e["layer"] == 0 and e["kind"] != "poly" and started <= e["mono"] <= stopped]
        heard = {(e["bar"], e["beat"]) for e in onsets}
        gaps = [b["mono"] - a["mono"] for a, b in zip(onsets, onsets[1:])]
        worst_gap = max(abs(g - 0.25) for g in gaps) * 1e3
        lost = [sum(1 for key in heard if key not in {(b, bt) for b, bt, _ in beats}) for beats in counts]
        print(f"companion load, {SECONDS:.0f} s on loopback: 20 live views, {answered / took:.0f} requests/s ({answered} answered, {failed} failed);"
              f" box onsets {len(onsets)} at 240 BPM, worst spacing error {worst_gap:.3f} ms; beats lost per view: max {max(lost)};"
              f" web RSS max {max(rss):.1f} MB")
        assert failed == 0 and answered / took >= 190, "requests were refused or too slow"
        assert max(lost) == 0, "a live view lost beats"
        assert max(rss) < 60, "tactus-web above 60 MB"
        assert worst_gap < 0.05, "the box's clicks moved"
    finally:
        box.stop()


if __name__ == "__main__":
    main()
