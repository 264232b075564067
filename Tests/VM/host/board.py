#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Turn a Tactus board file into what the guest needs to simulate that board.

Usage: board.py BOARD.toml OUTDIR
Writes OUTDIR/gpio-lines ("label offset name in|out idle-pull" per line) and
OUTDIR/board.env (shell assignments for the display and audio parts).

The schema is boards/README.md's: [gpio] chip (the label), [inputs.<role>] and
[outputs.<indicator>] with `line` (offset or name), optional `chip` and `active_low`;
[display] i2c_bus/address; [audio] device/sample_rate/channels/period_frames/periods.
Inputs idle at the level of a released switch: pulled up when active low (the default).
"""
import sys
import tomllib


def lines_of(board):
    default_chip = (board.get("gpio") or {}).get("chip")
    if "encoder" in board or "buttons" in board or "leds" in board:
        yield from lines_of_sections(board, default_chip)
        return
    for group in ("inputs", "outputs"):
        for role, table in (board.get(group) or {}).items():
            if isinstance(table, dict) and "line" in table:
                chip = table.get("chip", default_chip)
                if chip is None:
                    sys.exit(f"[{group}.{role}] has no chip and there is no [gpio] chip")
                yield group, role, str(chip), table


def lines_of_sections(board, chip):
    """The other board layout in the tree (TactusCore BoardFile on the controls branch):
    [encoder] a/b/switch, [buttons] tap/start/footswitch, [leds] accent/beat/subdivision,
    [buzzer] line; a value is an offset, a name, or { line = ..., active-low = ... }."""
    if chip is None:
        sys.exit("the board file has no [gpio] chip")
    spec = [("encoder", ("a", "b", "switch"), "inputs"), ("buttons", ("tap", "start", "footswitch"), "inputs"),
            ("leds", ("accent", "beat", "subdivision"), "outputs"), ("buzzer", ("line",), "outputs")]
    for section, keys, group in spec:
        table = board.get(section) or {}
        section_low = table.get("active-low")
        for key in keys:
            if key not in table:
                continue
            value = table[key]
            entry = dict(value) if isinstance(value, dict) else {"line": value}
            low = entry.get("active-low", section_low if section_low is not None else group == "inputs")
            yield group, f"{section}_{key}", str(entry.get("chip", chip)), {"line": entry["line"], "active_low": low}


def main():
    board_path, outdir = sys.argv[1], sys.argv[2]
    with open(board_path, "rb") as f:
        board = tomllib.load(f)

    chips = {}  # label -> {offset: (name, direction, idle)}
    for group, role, label, line in lines_of(board):
        is_output = group == "outputs"
        direction = "out" if is_output else "in"
        active_low = bool(line.get("active_low", not is_output))
        idle = "pull-up" if (active_low and not is_output) else "pull-down"
        lines = chips.setdefault(label, {})
        ref = line["line"]
        if isinstance(ref, int):
            offset, name = ref, role
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
        sys.exit(f"{board_path}: no GPIO lines ([inputs.*] / [outputs.*] with 'line') found")

    with open(f"{outdir}/gpio-lines", "w") as out:
        for label, lines in chips.items():
            for offset in sorted(lines):
                name, direction, idle = lines[offset]
                for word in (label, name):
                    if not word or any(c.isspace() for c in word):
                        sys.exit(f"{board_path}: chip label / line name {word!r} must be one word")
                out.write(f"{label} {offset} {name} {direction} {idle}\n")

    display = board.get("display") or {}
    audio = board.get("audio") or {}
    env = {
        "BOARD_I2C_BUS": display.get("i2c_bus", display.get("bus", 1)),
        "BOARD_I2C_ADDR": "0x%02x" % int(display.get("address", 0x3C)),
        "BOARD_AUDIO_DEVICE": audio.get("device", "default"),
        "BOARD_AUDIO_RATE": audio.get("sample_rate", audio.get("rate", 48000)),
        "BOARD_AUDIO_CHANNELS": audio.get("channels", 2),
        "BOARD_AUDIO_PERIOD": audio.get("period_frames", audio.get("period", 128)),
        "BOARD_AUDIO_PERIODS": audio.get("periods", 3),
    }
    with open(f"{outdir}/board.env", "w") as out:
        for key, value in env.items():
            out.write(f"{key}='{value}'\n")


if __name__ == "__main__":
    main()
