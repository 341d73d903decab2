#!/usr/bin/env python3
"""Reads a PodList (JSON) on stdin and prints one line per pod of dralloc's
scheduler, sorted: "ns/pod node" when bound, "ns/pod pending MESSAGE" when
its PodScheduled condition is False; prints WAITING instead when some pod is
neither yet."""
import json
import sys

SCHEDULERS = ("default-scheduler", "dralloc-scheduler")
lines = []
for pod in json.load(sys.stdin)["items"]:
    spec, status, meta = pod["spec"], pod.get("status", {}), pod["metadata"]
    if spec.get("schedulerName", "default-scheduler") not in SCHEDULERS:
        continue
    key = meta["namespace"] + "/" + meta["name"]
    if spec.get("nodeName"):
        lines.append(key + " " + spec["nodeName"])
        continue
    scheduled = [c for c in status.get("conditions", [])
                 if c["type"] == "PodScheduled"]
    if scheduled and scheduled[0]["status"] == "False":
        lines.append(key + " pending " + scheduled[0].get("message", ""))
    else:
        print("WAITING")
        sys.exit(0)
print("\n".join(sorted(lines)))
