#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The VM suite's verdict: reads the guest's console ("@@" lines) and the host's own checks,
prints a readable report (and, for each failure, the scenario's logs), exits 0 or 1.

Machine-parsable lines it prints, one per scenario and one summary:
  test-vm: scenario <name> PASS|FAIL|PENDING <secs>s <detail>
  test-vm: RESULT passed=N failed=N pending=N boot=<s> guest=<s> total=<s>
"""
import argparse
import os
import re
import sys


def tail(path, n):
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    return lines[-n:]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--console", required=True)
    p.add_argument("--host-results", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--qemu-rc", type=int, required=True)
    p.add_argument("--guest-timeout", required=True)
    p.add_argument("--guest-secs", required=True)
    p.add_argument("--total-secs", required=True)
    p.add_argument("--strict", default="0")
    p.add_argument("--selftest", default="0")
    p.add_argument("--load", default="0")
    a = p.parse_args()

    with open(a.console, errors="replace") as f:
        console = f.read().splitlines()
    try:
        with open(a.host_results) as f:
            host = f.read().splitlines()
    except OSError:
        host = []
    marks = [l for l in console if l.startswith("@@")] + host

    booted = next((l for l in marks if l.startswith("@@BOOTED")), None)
    done = next((l for l in marks if l.startswith("@@DONE")), None)
    setup = next((l for l in marks if l.startswith("@@SETUP")), None)
    boot = "never"
    if booted:
        m1, m2 = re.search(r"uptime=(\S+)", booted), re.search(r"host_s=(\S+)", booted)
        boot = f"{m2.group(1) if m2 else '?'}s after qemu started (guest uptime {m1.group(1) if m1 else '?'}s)"

    order, status, secs, results = [], {}, {}, {}
    for l in marks:
        w = l.split()
        if w[0] == "@@SCENARIO" and len(w) >= 3:
            name = w[1]
            if w[2] == "BEGIN":
                order.append(name)
                status[name] = "FAIL did-not-finish"
            elif w[2] == "END":
                rest = [x for x in w[3:] if not x.startswith(("secs=", "host_s="))]
                status[name] = " ".join(rest) or "FAIL no-verdict"
                secs[name] = next((x[5:] for x in w if x.startswith("secs=")), "?")
        elif w[0] == "@@RESULT" and len(w) >= 3:
            scen, _, check = w[1].partition(".")
            detail = re.sub(r"\s*host_s=\S+$", "", " ".join(w[3:]))
            results.setdefault(scen, []).append((check, w[2], detail))

    problems = []
    if a.qemu_rc == 124 or a.qemu_rc == 137:
        problems.append(f"qemu was stopped after the {a.guest_timeout}s limit")
    elif a.qemu_rc != 0:
        problems.append(f"qemu exited with status {a.qemu_rc}")
    if not booted:
        problems.append("the guest never reached its init (no @@BOOTED)")
    elif not done:
        problems.append("the guest did not finish its scenarios (no @@DONE)")
    if setup and " FAIL" in setup:
        problems.append("setting up the simulators in the guest failed (see setup.log below)")

    print()
    print("=" * 78)
    print("Tactus VM suite (gpio-sim, i2c-stub, snd-aloop under QEMU)")
    print("=" * 78)
    counts = {"PASS": 0, "FAIL": 0, "PENDING": 0}
    failed = []
    for name in order:
        verdict = status[name].split()[0]
        checks = results.get(name, [])
        if verdict == "PASS" and any(st == "FAIL" for _, st, _ in checks):
            verdict = "FAIL"  # a host-side check (audio) failed after the guest passed
        if verdict not in counts:
            verdict = "FAIL"
        counts[verdict] += 1
        reason = ""
        if verdict == "PENDING":
            reason = " ".join(status[name].split()[1:])
        elif verdict == "FAIL":
            failed.append(name)
            reason = " ".join(status[name].split()[1:])
        npass = sum(st == "PASS" for _, st, _ in checks)
        nfail = sum(st == "FAIL" for _, st, _ in checks)
        print(f"test-vm: scenario {name} {verdict} {secs.get(name, '?')}s "
              f"checks: {npass} passed, {nfail} failed{(' - ' + reason) if reason else ''}")

    for name in failed:
        d = os.path.join(a.out, name)
        print()
        print(f"--- {name}: FAILED ---")
        for check, st, detail in results.get(name, []):
            if st == "FAIL":
                print(f"  FAIL {check}: {detail}")
        for log in ("stdout.log", "stderr.log", "service.log", "check.log"):
            lines = tail(os.path.join(d, log), 25)
            if lines:
                print(f"  last lines of {name}/{log}:")
                for l in lines:
                    print(f"    | {l}")

    if problems:
        print()
        for msg in problems:
            print(f"test-vm: PROBLEM {msg}")
        if setup and " FAIL" in setup:
            for l in tail(os.path.join(a.out, "setup.log"), 30):
                print(f"    setup.log | {l}")
        if not done:
            print("  last console lines:")
            for l in console[-30:]:
                print(f"    | {l}")

    if not order and not problems:
        problems.append("no scenario ran")
        print("test-vm: PROBLEM no scenario ran (check --only)")
    strict = a.strict == "1" and counts["PENDING"] > 0
    ok = counts["FAIL"] == 0 and not problems and not strict
    print()
    print(f"test-vm: RESULT passed={counts['PASS']} failed={counts['FAIL']} pending={counts['PENDING']} "
          f"boot={boot.split('s ')[0]}s guest={a.guest_secs}s total={a.total_secs}s "
          f"mode={'load' if a.load == '1' else 'normal'}")
    print(f"VM boot: first guest command {boot}; guest run {a.guest_secs}s; whole suite {a.total_secs}s")
    if counts["PENDING"]:
        print("*" * 78)
        print(f"*** {counts['PENDING']} scenario(s) PENDING: they did not run, so they prove nothing yet"
              + (" (TACTUS_VM_STRICT=1: counted as a failure)" if strict else ""))
        print("*" * 78)
    if a.selftest == "1":
        print("!!! SELF-TEST RUN: tactus run/check were a shell stand-in; this says nothing about tactus !!!")
    print(f"test-vm: {'PASSED' if ok else 'FAILED'}  (console: {a.console}, files: {a.out})")
    # The plain summary line CI reads last.
    print(f"test-vm: {counts['PASS']} passed, {counts['FAIL']} failed" + (f", {counts['PENDING']} skipped" if counts["PENDING"] else ""))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
