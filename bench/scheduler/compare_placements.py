#!/usr/bin/env python3
"""Compares two `dralloc schedule -o json` outputs: every pod's node and
every claim's devices (claims by owning pod, as generated names differ).

  compare_placements.py A.json B.json     exit 0 same, 1 different
"""
import json
import sys


def placements(path):
    rows = {}
    for o in json.load(open(path))["items"]:
        meta = o["metadata"]
        if o["kind"] == "Pod":
            rows["pod " + meta["name"]] = o["spec"].get("nodeName", "")
        elif o["kind"] == "ResourceClaim":
            owners = meta.get("ownerReferences") or [{"name": meta["name"]}]
            results = (o.get("status", {}).get("allocation", {})
                       .get("devices", {}).get("results", []))
            rows["claim of " + owners[0]["name"]] = [
                (r["request"], r["driver"], r["pool"], r["device"])
                for r in results]
    return rows


def main():
    a, b = placements(sys.argv[1]), placements(sys.argv[2])
    differ = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    pods = sum(1 for k in a if k.startswith("pod "))
    if differ:
        k = differ[0]
        print(f"  placements: {len(differ)} differ with and without the "
              f"Filter cache, e.g. {k}: {a.get(k)} vs {b.get(k)}")
        return 1
    print(f"  placements: the same with and without the Filter cache "
          f"({pods} pods, every node and device)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
