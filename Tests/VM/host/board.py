#!/usr/bin/env python3
"""Turn a Tactus board file into what the guest needs to simulate that board.

Usage: board.py BOARD.toml OUTDIR
Writes OUTDIR/gpio-lines ("label offset name in|out idle-pull" per line) and
OUTDIR/board.env (shell assignments for the display and audio parts).

Deliberately tolerant of the board schema (it is still being settled on another branch):
any table holding `chip` and `line` is a GPIO line, an `outputs` path (or led/buzzer name)
makes it an output, and the display/audio keys are looked up under a few spellings.
"""
import sys
import tomllib


def walk(node, path=()):
    if isinstance(node, dict):
        if "chip" in node and "line" in node:
            yield path, node
        for key, value in node.items():
            yield from walk(value, path + (str(key),))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from walk(value, path + (str(i),))


def first(table, *keys, default=None):
    for key in keys:
        if isinstance(table, dict) and key in table:
            return table[key]
    return default


def main():
    board_path, outdir = sys.argv[1], sys.argv[2]
    with open(board_path, "rb") as f:
        board = tomllib.load(f)

    chips = {}  # label -> {offset: (name, direction, idle)}
    for path, line in walk(board):
        label = str(line["chip"])
        joined = "/".join(path).lower()
        is_output = "output" in joined or any(w in joined for w in ("led", "buzzer"))
        direction = "out" if is_output else "in"
        # Idle level of a released switch: pulled to its inactive level.
        active_low = bool(line.get("active_low", line.get("activeLow", not is_output)))
        idle = "pull-up" if (active_low and not is_output) else "pull-down"
        lines = chips.setdefault(label, {})
        ref = line["line"]
        if isinstance(ref, int):
            offset, name = ref, path[-1] if path else f"line{ref}"
        else:
            offset, name = None, str(ref)
        if offset is None:
            offset = 0
            while offset in lines:
                offset += 1
        if offset in lines:
            sys.exit(f"{board_path}: two lines at offset {offset} of chip {label!r}")
        lines[offset] = (name, direction, idle)

    if not chips:
        sys.exit(f"{board_path}: no GPIO lines (tables with 'chip' and 'line') found")

    with open(f"{outdir}/gpio-lines", "w") as out:
        for label, lines in chips.items():
            for offset in sorted(lines):
                name, direction, idle = lines[offset]
                for word in (label, name):
                    if not word or any(c.isspace() for c in word):
                        sys.exit(f"{board_path}: chip label / line name {word!r} must be one word")
                out.write(f"{label} {offset} {name} {direction} {idle}\n")

    display = first(board, "display", default={}) or {}
    audio = first(board, "audio", default={}) or {}
    env = {
        "BOARD_I2C_BUS": first(display, "bus", "i2c_bus", "i2cBus", default=0),
        "BOARD_I2C_ADDR": "0x%02x" % int(first(display, "address", "addr", default=0x3C)),
        "BOARD_AUDIO_DEVICE": first(audio, "device", default="hw:Loopback,0,0"),
        "BOARD_AUDIO_RATE": first(audio, "rate", "sample_rate", "sampleRate", default=48000),
        "BOARD_AUDIO_CHANNELS": first(audio, "channels", default=2),
        "BOARD_AUDIO_PERIOD": first(audio, "period_frames", "periodFrames", "period", default=256),
        "BOARD_AUDIO_PERIODS": first(audio, "period_count", "periodCount", "periods", default=4),
    }
    with open(f"{outdir}/board.env", "w") as out:
        for key, value in env.items():
            out.write(f"{key}='{value}'\n")


if __name__ == "__main__":
    main()
