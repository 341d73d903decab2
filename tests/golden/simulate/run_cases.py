#!/usr/bin/env python3
"""Golden cases of `dralloc simulate` (tests/golden/simulate/README.md).

Usage: run_cases.py DRALLOC_BINARY [--update] [CASE...]

Run from the repository root. Each case directory under this folder is run
as `DRALLOC simulate <args> -f <case>/cluster.yaml [--node-groups
<case>/groups.yaml] -o json`; the exit code must equal expect.exit, the JSON
on stdout must equal expect.json (parsed: key order is free, list order is
not; empty stdout is `null`), and every line of expect.stderr, if present,
must occur in stderr. --update rewrites expect.json and expect.exit.
"""
import argparse
import difflib
import json
import os
import shlex
import subprocess
import sys

HERE = os.path.relpath(os.path.dirname(os.path.abspath(__file__)))


def case_dirs(names):
    found = sorted(d for d in os.listdir(HERE)
                   if os.path.isfile(os.path.join(HERE, d, "args")))
    if not names:
        return found
    missing = [n for n in names if n not in found]
    if missing:
        sys.exit("unknown case(s): " + ", ".join(missing))
    return names


def read(path, default=None):
    if not os.path.exists(path):
        return default
    with open(path, encoding="utf-8") as f:
        return f.read()


def command(binary, case):
    args = shlex.split(read(os.path.join(case, "args")).strip())
    cmd = [binary, "simulate"] + args + ["-f", os.path.join(case, "cluster.yaml")]
    if os.path.exists(os.path.join(case, "groups.yaml")):
        cmd += ["--node-groups", os.path.join(case, "groups.yaml")]
    return cmd + ["-o", "json"]


def normalized(value):
    return json.dumps(value, indent=2, sort_keys=True) + "\n"


def run_case(binary, name, update):
    case = os.path.join(HERE, name)
    cmd = command(binary, case)
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    try:
        actual = json.loads(done.stdout) if done.stdout.strip() else None
    except json.JSONDecodeError as error:
        print(f"FAIL {name}: stdout is not JSON ({error}):\n{done.stdout}")
        return False
    if update:
        with open(os.path.join(case, "expect.json"), "w", encoding="utf-8") as f:
            f.write(normalized(actual))
        with open(os.path.join(case, "expect.exit"), "w", encoding="utf-8") as f:
            f.write(f"{done.returncode}\n")
        print(f"UPDATED {name} (exit {done.returncode})")
        return True
    problems = []
    want_exit = int(read(os.path.join(case, "expect.exit"), "0").strip())
    if done.returncode != want_exit:
        problems.append(f"exit code {done.returncode}, want {want_exit}")
    want_text = read(os.path.join(case, "expect.json"), "null")
    want = json.loads(want_text)
    if want != actual:
        diff = difflib.unified_diff(
            normalized(want).splitlines(keepends=True),
            normalized(actual).splitlines(keepends=True),
            fromfile=f"{name}/expect.json", tofile=f"{name} (actual)")
        problems.append("output differs:\n" + "".join(diff))
    for line in (read(os.path.join(case, "expect.stderr"), "") or "").splitlines():
        if line.strip() and line.strip() not in done.stderr:
            problems.append(f"stderr lacks {line.strip()!r}")
    if problems:
        print(f"FAIL {name}: {shlex.join(cmd)}")
        for problem in problems:
            print("  " + problem.replace("\n", "\n  "))
        if done.stderr:
            print("  stderr:\n    " + done.stderr.rstrip().replace("\n", "\n    "))
        return False
    print(f"ok   {name}")
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--update", action="store_true",
                        help="rewrite expect.json/expect.exit from the output")
    parser.add_argument("cases", nargs="*")
    options = parser.parse_intermixed_args()
    names = case_dirs(options.cases)
    if not names:
        sys.exit(f"no cases under {HERE}")
    failed = [n for n in names if not run_case(options.binary, n, options.update)]
    print(f"{len(names) - len(failed)}/{len(names)} cases passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
