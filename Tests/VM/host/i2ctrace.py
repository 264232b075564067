#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Decodes the display traffic the guest's kernel traced (smbus_write events) as an SSD1306 /
SH1106 would, and checks it.

Usage: i2ctrace.py TRACE [--address 0x3c] [--min-frames N] [--expect testcard] [--cleared-at-end]
Trace lines look like
  smbus_write: i2c-0 a=03c f=0000 c=40 I2C_BLOCK_DATA l=33 [20-ff-...]
where c is the control byte (0x00 command stream, 0x40 data stream) and, for block
transfers, the first traced byte is the block's length.

Checks: every transfer goes to the address, is an SMBus block write of at most 32 bytes;
the command stream starts with display off (0xAE), turns the charge pump on (8D 14, SSD1306)
and the display on (0xAF); at least one full frame (1024 data bytes) then at least N-1
further data flushes arrive; a non-blank picture was shown (with --cleared-at-end: the final picture is blank, as after
a graceful stop). The fullest picture shown is written out; with --expect testcard it is, pixel for pixel, the
test card `tactus check` shows (LinuxHAL HardwareCheck.testCard), as TRACE.pbm (plain
PBM) for a person to look at.
"""
import argparse
import re
import sys

ARGS = {0x81: 1, 0x20: 1, 0x21: 2, 0x22: 2, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1,
        0x8D: 1, 0xAD: 1, 0xA3: 2, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5}
LINE = re.compile(r"smbus_write: i2c-\d+ a=([0-9a-f]+) f=[0-9a-f]+ c=([0-9a-f]+) (\S+) l=(\d+) \[([0-9a-f-]*)\]")


class Panel:
    def __init__(self):
        self.ram = [[0] * 132 for _ in range(8)]
        self.mode = 2  # page addressing after reset
        self.col, self.page = 0, 0
        self.c0, self.c1, self.p0, self.p1 = 0, 127, 0, 7

    def command(self, op, args):
        if op == 0x20:
            self.mode = args[0] & 3
        elif op == 0x21:
            self.c0, self.c1 = args[0] & 127, args[1] & 127
            self.col = self.c0
        elif op == 0x22:
            self.p0, self.p1 = args[0] & 7, args[1] & 7
            self.page = self.p0
        elif 0xB0 <= op <= 0xB7:
            self.page = op & 7
        elif op <= 0x0F:
            self.col = (self.col & 0xF0) | op
        elif 0x10 <= op <= 0x1F:
            self.col = (self.col & 0x0F) | ((op & 0x0F) << 4)

    def data(self, byte):
        if self.col < 132:
            self.ram[self.page][self.col] = byte
        if self.mode == 0:  # horizontal
            self.col += 1
            if self.col > self.c1:
                self.col = self.c0
                self.page = self.p0 if self.page >= self.p1 else self.page + 1
        elif self.mode == 1:  # vertical
            self.page += 1
            if self.page > self.p1:
                self.page = self.p0
                self.col = self.c0 if self.col >= self.c1 else self.col + 1
        else:  # page: the column advances, the page stays
            self.col += 1

    def pbm(self, offset):
        rows = []
        for y in range(64):
            rows.append(" ".join(str((self.ram[y // 8][x + offset] >> (y % 8)) & 1) for x in range(128)))
        return "P1\n128 64\n" + "\n".join(rows) + "\n"


def test_card(width=128, height=64):
    """HardwareCheck.testCard: a border, a diagonal and a checkerboard patch."""
    px = [[0] * width for _ in range(height)]
    for x in range(width):
        px[0][x] = px[height - 1][x] = 1
    for y in range(height):
        px[y][0] = px[y][width - 1] = 1
    for x in range(width):
        px[x * (height - 1) // (width - 1)][x] = 1
    for y in range(8, height - 8):
        for x in range(width - 24, width - 8):
            if (x // 4 + y // 4) % 2 == 0:
                px[y][x] = 1
    return px


def main():
    p = argparse.ArgumentParser()
    p.add_argument("trace")
    p.add_argument("--address", default="0x3c")
    p.add_argument("--min-frames", type=int, default=1)
    p.add_argument("--expect", choices=["testcard"])
    p.add_argument("--cleared-at-end", action="store_true")
    a = p.parse_args()
    want_addr = int(a.address, 0)
    problems, commands, flushes = [], [], 0
    panel, data_bytes, transfers, first_full = Panel(), 0, 0, None
    pending_cmd, in_data, shown, shown_lit = [], False, None, 0
    with open(a.trace) as f:
        for raw in f:
            m = LINE.search(raw)
            if not m:
                continue
            addr, ctrl, proto, _, hexbytes = m.groups()
            addr, ctrl = int(addr, 16), int(ctrl, 16)
            payload = [int(x, 16) for x in hexbytes.split("-") if x]
            transfers += 1
            if addr != want_addr:
                problems.append(f"transfer to 0x{addr:02x}")
                continue
            if proto == "I2C_BLOCK_DATA":
                payload = payload[1:1 + payload[0]] if payload else []
            elif proto != "BYTE_DATA":
                problems.append(f"{proto} transfer (expected SMBus block or byte writes)")
            if len(payload) > 32:
                problems.append(f"{len(payload)}-byte block (SMBus allows 32)")
            if ctrl & 0x40:
                if not in_data:
                    flushes += 1
                in_data = True
                for b in payload:
                    panel.data(b)
                data_bytes += len(payload)
                if first_full is None and data_bytes >= 1024:
                    first_full = flushes
            else:
                if in_data:
                    # The fullest picture shown is the one kept: a clear at the end goes out
                    # page by page, so the last non-blank state is a half-cleared screen.
                    lit = sum(bin(b).count("1") for row in panel.ram for b in row)
                    if lit > shown_lit:
                        shown, shown_lit = [row[:] for row in panel.ram], lit
                in_data = False
                pending_cmd += payload
                while pending_cmd:
                    op = pending_cmd[0]
                    n = ARGS.get(op, 0)
                    if len(pending_cmd) < 1 + n:
                        break  # arguments follow in the next transfer
                    panel.command(op, pending_cmd[1:1 + n])
                    commands.append(op)
                    pending_cmd = pending_cmd[1 + n:]
    if transfers == 0:
        print("FAIL no smbus_write events traced: nothing reached the display bus")
        return 1
    checks = []
    checks.append(("starts with display off (AE)", bool(commands) and commands[0] == 0xAE))
    checks.append(("display on (AF)", 0xAF in commands))
    checks.append(("full frame (1024 data bytes)", first_full is not None))
    checks.append((f"{a.min_frames} or more data flushes after it",
                   first_full is not None and flushes - first_full + 1 >= a.min_frames))
    offset = 2 if 0xAD in commands and 0x8D not in commands else 0  # SH1106: 132-column RAM
    final_blank = not any(any(row) for row in panel.ram)
    if sum(bin(b).count("1") for row in panel.ram for b in row) >= shown_lit and not final_blank:
        shown = [row[:] for row in panel.ram]
    if a.cleared_at_end:
        checks.append(("screen cleared at the end", final_blank))
    checks.append(("a non-blank picture shown", shown is not None))
    if shown is not None:
        panel.ram = shown
    picture = panel.pbm(offset)
    if a.expect == "testcard":
        got = [[int(v) for v in row.split()] for row in picture.split("\n")[2:66]]
        want = test_card()
        diff = sum(g != w for gr, wr in zip(got, want) for g, w in zip(gr, wr))
        checks.append((f"the test card ({diff} pixels differ)", diff == 0))
    with open(a.trace + ".pbm", "w") as out:
        out.write(picture)
    bad = [name for name, ok in checks if not ok] + sorted(set(problems))
    summary = (f"transfers={transfers} commands={len(commands)} data_bytes={data_bytes} "
               f"flushes={flushes} picture={a.trace}.pbm")
    if bad:
        print(f"FAIL {summary}; missing/wrong: {'; '.join(bad)}")
        return 1
    print(f"PASS {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
