#!/usr/bin/env python3
"""Splits a golden scheduling case for loading with kubectl.

Usage: split_case.py CASE.yaml OUT_DIR
Writes OUT_DIR/0-namespaces.yaml (the namespaces the objects use and the
case does not define), 1-cluster.yaml (every object but pods, without
status), 2-pods.yaml (the pods, in file order, without status) and
status.tsv (kind, namespace or "-", name, status JSON per object with a status:
the API ignores status on create, so it is written afterwards).
"""
import json
import os
import sys

import yaml


def main():
    source, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    with open(source) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    defined = {d["metadata"]["name"] for d in docs if d["kind"] == "Namespace"}
    used = {d["metadata"].get("namespace") for d in docs} - {None} - defined
    cluster, pods, statuses = [], [], []
    for doc in docs:
        status = doc.pop("status", None)
        if status:
            meta = doc["metadata"]
            statuses.append("\t".join([doc["kind"].lower(),
                                       meta.get("namespace") or "-", meta["name"],
                                       json.dumps(status)]))
        (pods if doc["kind"] == "Pod" else cluster).append(doc)
    namespaces = [{"apiVersion": "v1", "kind": "Namespace",
                   "metadata": {"name": name}} for name in sorted(used)]
    for name, objects in (("0-namespaces.yaml", namespaces),
                          ("1-cluster.yaml", cluster),
                          ("2-pods.yaml", pods)):
        with open(os.path.join(out, name), "w") as f:
            yaml.safe_dump_all(objects, f)
    with open(os.path.join(out, "status.tsv"), "w") as f:
        f.write("".join(line + "\n" for line in statuses))


if __name__ == "__main__":
    main()
