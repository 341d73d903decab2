#!/usr/bin/env python3
"""Writes the autoscaler-simulation benchmark cluster (see README.md here).

  make_cluster.py OUT_DIR [--nodes 500] [--gpus 8] [--pending 1000]
                  [--groups 3] [--used-fraction 0.75] [--seed 1]

OUT_DIR/cluster.yaml: a DeviceClass "gpu", --nodes nodes (gpu-node-N) each
publishing one pool of --gpus GPUs, running pods that hold a one-GPU claim
each (node N runs a pseudo-random number of them, --used-fraction of the
GPUs on average), and --pending pending pods from three Deployments: one
GPU, two GPUs and one GPU of model "b" (firstAvailable: b, else any).
OUT_DIR/groups.yaml: --groups NodeGroups of 8-GPU templates, models a, b, c.
Deterministic for a given seed.
"""
import argparse
import os
import random
import textwrap

import yaml


def device(name, model):
    return (f"    - name: {name}\n"
            f"      attributes:\n"
            f"        model: {{string: {model}}}\n"
            f"      capacity:\n"
            f"        memory: {{value: 80Gi}}\n")


def node(name, cpu="64", memory="512Gi", labels=None, model="a", gpus=8):
    labels = labels or {}
    label_text = "".join(f"    {k}: {v}\n" for k, v in sorted(labels.items()))
    devices = "".join(device(f"gpu-{i}", model) for i in range(gpus))
    return (f"apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n"
            f"  labels:\n    kubernetes.io/hostname: {name}\n{label_text}"
            f"status:\n  allocatable:\n    cpu: \"{cpu}\"\n"
            f"    memory: {memory}\n    pods: \"110\"\n---\n"
            f"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
            f"metadata:\n  name: {name}-gpu\nspec:\n"
            f"  driver: gpu.example.com\n  nodeName: {name}\n"
            f"  pool:\n    name: {name}\n    generation: 1\n"
            f"    resourceSliceCount: 1\n  devices:\n{devices}---\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--gpus", type=int, default=8)
    parser.add_argument("--pending", type=int, default=1000)
    parser.add_argument("--groups", type=int, default=3)
    parser.add_argument("--used-fraction", type=float, default=0.75)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    out = []
    out.append("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
               "metadata:\n  name: gpu\nspec:\n  selectors:\n"
               "  - cel:\n      expression: "
               "device.driver == 'gpu.example.com'\n---\n")
    for n in range(args.nodes):
        name = f"gpu-node-{n}"
        out.append(node(name))
        mean = args.used_fraction * args.gpus
        used = max(0, min(args.gpus, round(rng.gauss(mean, 2))))
        for g in range(used):
            claim = f"{name}-job-{g}"
            out.append(
                f"apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
                f"metadata:\n  name: {claim}\n  namespace: ml\nspec:\n"
                f"  devices:\n    requests:\n    - name: gpu\n"
                f"      exactly:\n        deviceClassName: gpu\n"
                f"status:\n  allocation:\n    devices:\n      results:\n"
                f"      - request: gpu\n        driver: gpu.example.com\n"
                f"        pool: {name}\n        device: gpu-{g}\n"
                f"    nodeSelector:\n      nodeSelectorTerms:\n"
                f"      - matchFields:\n        - key: metadata.name\n"
                f"          operator: In\n          values: [{name}]\n"
                f"  reservedFor:\n  - resource: pods\n    name: {claim}\n"
                f"    uid: {n:08d}-0000-4000-9000-{g:012d}\n---\n"
                f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {claim}\n"
                f"  namespace: ml\n  uid: {n:08d}-0000-4000-9000-{g:012d}\n"
                f"spec:\n  nodeName: {name}\n  containers:\n"
                f"  - name: main\n    image: trainer\n    resources:\n"
                f"      requests: {{cpu: \"1\", memory: 4Gi}}\n"
                f"      claims:\n      - name: gpu\n"
                f"  resourceClaims:\n  - name: gpu\n"
                f"    resourceClaimName: {claim}\n---\n")
    templates = {
        "one-gpu": "    - name: gpu\n      exactly:\n"
                   "        deviceClassName: gpu\n",
        "two-gpus": "    - name: gpu\n      exactly:\n"
                    "        deviceClassName: gpu\n        count: 2\n",
        "prefer-b": "    - name: gpu\n      firstAvailable:\n"
                    "      - name: b\n        deviceClassName: gpu\n"
                    "        selectors:\n        - cel:\n            "
                    "expression: device.attributes['gpu.example.com']"
                    ".model == 'b'\n"
                    "      - name: any\n        deviceClassName: gpu\n",
    }
    for name, requests in templates.items():
        out.append(f"apiVersion: resource.k8s.io/v1\n"
                   f"kind: ResourceClaimTemplate\nmetadata:\n  name: {name}\n"
                   f"  namespace: ml\nspec:\n  spec:\n    devices:\n"
                   f"      requests:\n{textwrap.indent(requests, '    ')}---\n")
    kinds = list(templates)
    for p in range(args.pending):
        kind = kinds[p % len(kinds)]
        out.append(
            f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {kind}-{p}\n"
            f"  namespace: ml\n  ownerReferences:\n  - apiVersion: apps/v1\n"
            f"    kind: ReplicaSet\n    name: {kind}\n"
            f"    uid: 00000000-0000-4000-a000-00000000000{kinds.index(kind)}\n"
            f"    controller: true\n"
            f"spec:\n  containers:\n  - name: main\n    image: trainer\n"
            f"    resources:\n      requests: {{cpu: \"2\", memory: 8Gi}}\n"
            f"      claims:\n      - name: gpu\n"
            f"  resourceClaims:\n  - name: gpu\n"
            f"    resourceClaimTemplateName: {kind}\n---\n")
    with open(os.path.join(args.out, "cluster.yaml"), "w") as f:
        f.write("".join(out))
    groups = []
    for g, model in zip(range(args.groups), "abcdefgh"):
        node_doc, slice_doc = [
            yaml.safe_load(text) for text in node(
                "template", model=model,
                labels={"gpu-model": model}).split("---\n")[:2]]
        groups.append({
            "apiVersion": "dralloc.io/v1alpha1", "kind": "NodeGroup",
            "metadata": {"name": f"group-{model}"},
            "spec": {"minSize": 0, "maxSize": 1000,
                     "template": {"node": node_doc,
                                  "resourceSlices": [slice_doc]}}})
    with open(os.path.join(args.out, "groups.yaml"), "w") as f:
        yaml.safe_dump_all(groups, f, sort_keys=False)


if __name__ == "__main__":
    main()
