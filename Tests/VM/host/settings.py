#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks the settings file(s) the service left in its state folder.

Usage: settings.py DIR [--bpm N]
Every *.toml in DIR must parse as TOML (Python's tomllib, an independent reader) and carry
a `schema`; with --bpm, [current] bpm must be N (presets have their own bpm: not those).
Prints one line; exit 0 or 1.
"""
import argparse
import glob
import os
import sys
import tomllib


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--bpm", type=float)
    a = p.parse_args()
    files = sorted(glob.glob(os.path.join(a.dir, "*.toml")))
    if not files:
        print(f"FAIL no *.toml in {a.dir}")
        return 1
    tempos = []
    for f in files:
        try:
            with open(f, "rb") as fh:
                doc = tomllib.load(fh)
        except (OSError, tomllib.TOMLDecodeError) as e:
            print(f"FAIL {os.path.basename(f)} is not valid TOML: {e}")
            return 1
        if "schema" not in doc:
            print(f"FAIL {os.path.basename(f)}: no schema version")
            return 1
        current = doc.get("current")
        tempos += [current["bpm"]] if isinstance(current, dict) and "bpm" in current else []
    names = " ".join(os.path.basename(f) for f in files)
    if a.bpm is not None and a.bpm not in tempos:
        print(f"FAIL {names}: valid TOML, but tempo {tempos or 'not found'}, want {a.bpm:g}")
        return 1
    print(f"PASS {names}: valid TOML" + (f", tempo {a.bpm:g}" if a.bpm is not None else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
