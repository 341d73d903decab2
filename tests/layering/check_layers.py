#!/usr/bin/env python3
"""Checks that includes in src/ follow the layers the CMake targets declare.

Each folder src/<f> is one library (dralloc_<f>) declared with
dralloc_library(... DEPS ...) in src/<f>/CMakeLists.txt. A source file of
<f> may include headers of <f> and of every folder its library depends on,
directly or transitively; a test file (*_test.cc, *_test_util.h) may include what its
dralloc_test(... DEPS ...) program links. The library dependency graph must
have no cycle, and the root CMakeLists.txt adds the folders lowest layer
first (each after every folder it depends on). Where a folder has a layers.txt (lowest sub-folder first, one
line `name: allowed-dep ...`, "." for the folder's own top level), includes
between its sub-folders must follow it as well.

Usage: check_layers.py SRC_DIR       exit 0 clean, 1 with violations listed
       check_layers.py --self-test   proves the check rejects a bad include
"""
import pathlib
import re
import sys
import tempfile

CALL = re.compile(r"dralloc_(library|test)\(\s*(\w+)(.*?)\)", re.S)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/([^"]*)"', re.M)


def folder_of(target, folders):
    name = target[len("dralloc_"):]
    for candidate in (name, name.removesuffix("_lib"), name.removesuffix("_test")):
        if candidate in folders:
            return candidate
    return None


def parse_targets(src):
    folders = {p.name for p in src.iterdir() if (p / "CMakeLists.txt").exists()}
    libs, tests = {}, {}
    for folder in sorted(folders):
        text = (src / folder / "CMakeLists.txt").read_text()
        text = re.sub(r"#[^\n]*", "", text)
        for kind, target, args in CALL.findall(text):
            deps_text = args.split("DEPS", 1)[1] if "DEPS" in args else ""
            deps = {folder_of(d, folders) for d in re.findall(r"\bdralloc_\w+", deps_text)}
            deps.discard(None)
            deps.discard(folder)
            (libs if kind == "library" else tests)[folder] = deps
    return folders, libs, tests


def closure(start, libs):
    seen, stack = set(), list(start)
    while stack:
        f = stack.pop()
        if f not in seen:
            seen.add(f)
            stack.extend(libs.get(f, ()))
    return seen


def find_cycle(libs):
    state = {}

    def visit(f, path):
        state[f] = 1
        for d in sorted(libs.get(f, ())):
            if state.get(d) == 1:
                return path + [f, d]
            if d not in state:
                found = visit(d, path + [f])
                if found:
                    return found
        state[f] = 2
        return None

    for f in sorted(libs):
        if f not in state:
            found = visit(f, [])
            if found:
                return found
    return None


def sub_layers(folder_dir):
    path = folder_dir / "layers.txt"
    if not path.exists():
        return None
    allowed = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, _, deps = line.partition(":")
        allowed[name.strip()] = set(deps.split())
    # Transitive: a sub-folder may use what its allowed sub-folders may use.
    return {name: closure(deps, allowed) | {name} for name, deps in allowed.items()}


def check(src):
    src = pathlib.Path(src)
    folders, libs, tests = parse_targets(src)
    problems = []
    cycle = find_cycle(libs)
    if cycle:
        problems.append("library dependency cycle: " + " -> ".join(cycle))
    root_cmake = src.parent / "CMakeLists.txt"
    if root_cmake.exists():
        order = re.findall(r"add_subdirectory\(src/(\w+)\)", root_cmake.read_text())
        for i, folder in enumerate(order):
            for dep in sorted(libs.get(folder, ())):
                if dep in order and order.index(dep) > i:
                    problems.append(f"CMakeLists.txt adds src/{folder} before src/{dep}, "
                                    f"which it depends on (list the lower layer first)")
    for folder in sorted(folders):
        folder_dir = src / folder
        lib_allowed = closure(libs.get(folder, set()), libs) | {folder}
        test_allowed = closure(tests.get(folder, set()) | {folder}, libs) | lib_allowed
        subs = sub_layers(folder_dir)
        for path in sorted(folder_dir.rglob("*")):
            if path.suffix not in (".h", ".cc"):
                continue
            is_test = path.name.endswith("_test.cc") or "_test_util." in path.name
            allowed = test_allowed if is_test else lib_allowed
            rel = path.relative_to(src)
            text = path.read_text(errors="replace")
            for match in INCLUDE.finditer(text):
                target, rest = match.group(1), match.group(2)
                line = text.count("\n", 0, match.start()) + 1
                if target in folders and target not in allowed:
                    problems.append(f"src/{rel}:{line}: includes {target}/{rest}, "
                                    f"but dralloc_{folder} does not depend on dralloc_{target}")
                if subs is not None and target == folder and not is_test:
                    own = rel.parts[1] if len(rel.parts) > 2 else "."
                    other = rest.split("/", 1)[0] if "/" in rest else "."
                    if own in subs and other not in subs[own]:
                        problems.append(f"src/{rel}:{line}: includes {folder}/{rest}, "
                                        f"but {folder}/{own} may not use {folder}/{other} "
                                        f"(src/{folder}/layers.txt)")
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        src = pathlib.Path(tmp)
        for name, deps in (("low", ""), ("high", "DEPS dralloc_low")):
            (src / name).mkdir()
            (src / name / "CMakeLists.txt").write_text(
                f"dralloc_library(dralloc_{name} SRCS a.cc {deps})\n")
        (src / "high" / "a.cc").write_text('#include "low/a.h"\n')
        (src / "low" / "a.cc").write_text('#include "low/a.h"\n')
        assert check(src) == [], check(src)
        (src / "low" / "b.cc").write_text('#include "high/a.h"\n')
        bad = check(src)
        assert len(bad) == 1 and "src/low/b.cc:1: includes high/a.h" in bad[0], bad
        (src / "low" / "b.cc").unlink()
        (src / "low" / "CMakeLists.txt").write_text(
            "dralloc_library(dralloc_low SRCS a.cc DEPS dralloc_high)\n")
        assert any("cycle" in p for p in check(src)), check(src)
        (src / "low" / "CMakeLists.txt").write_text("dralloc_library(dralloc_low SRCS a.cc)\n")
        (src / "low" / "top").mkdir()
        (src / "low" / "base").mkdir()
        (src / "low" / "layers.txt").write_text("base:\ntop: base\n.: top\n")
        (src / "low" / "base" / "x.h").write_text('#include "low/top/y.h"\n')
        (src / "low" / "top" / "y.h").write_text('#include "low/base/x.h"\n')
        bad = check(src)
        assert len(bad) == 1 and "low/base may not use low/top" in bad[0], bad
    print("check_layers self-test: 3 violations detected as expected")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return 0
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(sys.argv[1])
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} layering violation(s)")
        return 1
    print("layering: every include follows the CMake dependencies")
    return 0


if __name__ == "__main__":
    sys.exit(main())
