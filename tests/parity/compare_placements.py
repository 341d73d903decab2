#!/usr/bin/env python3
"""Compares pod placements from `dralloc serve` with a golden .expect file.

Usage: compare_placements.py CASE.expect GOT
GOT has one line per pod: "ns/pod node" or "ns/pod pending MESSAGE". The
.expect file (see src/controlplane/what_if_golden_test.cc) has
"ns/pod node [devices...]" (devices are not compared here) or
"ns/pod pending TEXT" (MESSAGE must contain TEXT); comment, option and
error lines are ignored. Prints the differences; exit 1 if any.
"""
import sys


def read_expected(path):
    want = {}
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#") or line.split()[0] in ("option", "error"):
            continue
        key, rest = line.split(" ", 1)
        node, _, detail = rest.partition(" ")
        want[key] = (node, detail if node == "pending" else "")
    return want


def read_got(path):
    got = {}
    for line in open(path):
        line = line.rstrip("\n")
        if not line:
            continue
        key, rest = line.split(" ", 1)
        node, _, detail = rest.partition(" ")
        got[key] = (node, detail)
    return got


def main():
    want, got = read_expected(sys.argv[1]), read_got(sys.argv[2])
    problems = []
    for key in sorted(set(want) | set(got)):
        if key not in got:
            problems.append(f"{key}: expected {want[key][0]}, not seen")
        elif key not in want:
            problems.append(f"{key}: unexpected pod on {got[key][0]}")
        elif want[key][0] != got[key][0]:
            problems.append(f"{key}: expected {want[key][0]}, got {got[key][0]} {got[key][1]}".rstrip())
        elif want[key][0] == "pending" and want[key][1] not in got[key][1]:
            problems.append(f"{key}: pending for another reason: {got[key][1]!r} does not contain {want[key][1]!r}")
    print("\n".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
