#!/usr/bin/env python3
"""Generates the scheduler benchmark workload (see README.md in this folder).

Mirrors upstream scheduler_perf `SchedulingWithResourceClaimTemplate`
(test/integration/scheduler_perf/dra/): N nodes, each with one ResourceSlice
of driver test-driver.cdi.k8s.io holding D devices `instance-0..D-1`, the
DeviceClass `test-class`, one ResourceClaimTemplate and P pods that each get
one claim from it.

  make_workload.py --nodes 500 --devices-per-node 10 --pods 5000 \
      --variant template|match-attribute --out DIR

Variant classic: the same nodes and pods, but a resource.k8s.io/v1alpha2
ResourceClass of driver gpu.classic.example.com (GPUs held by `dralloc driver
classic-example --gpus-per-node D`, no slices) and a v1alpha2 template.

Writes DIR/cluster.yaml, DIR/template.yaml, DIR/pods.yaml (multi-document
YAML for `dralloc validate` / `dralloc schedule -f DIR`) and the same objects
as JSON lines: DIR/setup.jsonl (namespace, class, nodes, slices, template, in
that order) and DIR/pods.jsonl (for `dralloc_api_load schedule-pods`).

Standard library only; the YAML is emitted by a small block-style writer
(strings are JSON-quoted, which is valid YAML).
"""

import argparse
import json
import os
import sys

NAMESPACE = "test"
DRIVER = "test-driver.cdi.k8s.io"
CLASS_NAME = "test-class"
TEMPLATE_NAME = "test-claim-template"
NODE_LABEL = "node-with-dra"
NUMA_ATTRIBUTE = "dra.example.com/numa"
VARIANTS = ("template", "match-attribute", "classic")
# The classic variant (issue #27): a resource.k8s.io/v1alpha2 ResourceClass
# whose control-plane driver (`dralloc driver classic-example`) holds the
# GPUs, no ResourceSlices, and a v1alpha2 template asking for one GPU.
CLASSIC_DRIVER = "gpu.classic.example.com"
CLASSIC_CLASS = "classic-gpu"
CLASSIC_PARAMETERS = "one-gpu"


def namespace_object():
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": NAMESPACE},
    }


def device_class():
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": CLASS_NAME},
        "spec": {
            "selectors": [
                {"cel": {"expression": f'device.driver == "{DRIVER}"'}}
            ]
        },
    }


def node(index):
    # Upstream's node-with-dra-test-driver.yaml: Ready, 110 pods, 4 CPUs, 32Gi.
    name = f"node-{index}"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "kubernetes.io/hostname": name,
                NODE_LABEL: "true",
            },
        },
        "spec": {},
        "status": {
            "capacity": {"pods": "110", "cpu": "4", "memory": "32Gi"},
            "allocatable": {"pods": "110", "cpu": "4", "memory": "32Gi"},
            "conditions": [{"type": "Ready", "status": "True"}],
            "phase": "Running",
        },
    }


def resource_slice(index, devices_per_node):
    # Upstream's createResourceDriver: one slice per node, pool = node name,
    # devices instance-N with model/family/driverVersion/numa and 1Gi memory.
    name = f"node-{index}"
    devices = []
    for device in range(devices_per_node):
        devices.append({
            "name": f"instance-{device}",
            "attributes": {
                "model": {"string": "A100"},
                "family": {"string": "GPU"},
                "driverVersion": {"version": "1.2.3"},
                NUMA_ATTRIBUTE: {"int": device},
            },
            "capacity": {"memory": {"value": "1Gi"}},
        })
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{name}-{DRIVER}"},
        "spec": {
            "driver": DRIVER,
            "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
            "nodeName": name,
            "devices": devices,
        },
    }


def claim_template(variant):
    # Upstream's templates/resourceclaimtemplate.yaml: requests req-0..,
    # `exactly` one device of test-class; optional devices.constraints.
    devices = {
        "requests": [{
            "name": "req-0",
            "exactly": {
                "deviceClassName": CLASS_NAME,
                "allocationMode": "ExactCount",
                "count": 1,
            },
        }]
    }
    if variant == "match-attribute":
        devices["constraints"] = [{"matchAttribute": NUMA_ATTRIBUTE}]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": TEMPLATE_NAME, "namespace": NAMESPACE},
        "spec": {"spec": {"devices": devices}},
    }


def classic_objects():
    resource_class = {
        "apiVersion": "resource.k8s.io/v1alpha2",
        "kind": "ResourceClass",
        "metadata": {"name": CLASSIC_CLASS},
        "driverName": CLASSIC_DRIVER,
    }
    parameters = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": CLASSIC_PARAMETERS, "namespace": NAMESPACE},
        "data": {"count": "1"},
    }
    return [resource_class, parameters]


def classic_template():
    return {
        "apiVersion": "resource.k8s.io/v1alpha2",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": TEMPLATE_NAME, "namespace": NAMESPACE},
        "spec": {"spec": {
            "resourceClassName": CLASSIC_CLASS,
            "parametersRef": {"kind": "ConfigMap", "name": CLASSIC_PARAMETERS},
        }},
    }


def pod(index):
    # Upstream's templates/pod-with-claim-template.yaml (pause container).
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"pod-{index}", "namespace": NAMESPACE},
        "spec": {
            "containers": [{
                "name": "pause",
                "image": "registry.k8s.io/pause:3.10.1",
                "resources": {"claims": [{"name": "resource"}]},
            }],
            "resourceClaims": [{
                "name": "resource",
                "resourceClaimTemplateName": TEMPLATE_NAME,
            }],
        },
    }


def yaml_scalar(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value if _plain_string(value) else json.dumps(value)
    raise TypeError(f"unsupported YAML scalar {value!r}")


def yaml_lines(value, indent):
    """Block-style YAML for dicts/lists of scalars, as a list of lines."""
    pad = "  " * indent
    lines = []
    if isinstance(value, dict):
        if not value:
            return [pad + "{}"]
        for key, item in value.items():
            key_text = key if _plain_key(key) else json.dumps(key)
            if isinstance(item, (dict, list)) and item:
                lines.append(f"{pad}{key_text}:")
                # Sequences under a mapping key stay at the key's indent.
                lines.extend(yaml_lines(item, indent if isinstance(item, list)
                                        else indent + 1))
            elif isinstance(item, (dict, list)):
                lines.append(f"{pad}{key_text}: {'{}' if isinstance(item, dict) else '[]'}")
            else:
                lines.append(f"{pad}{key_text}: {yaml_scalar(item)}")
        return lines
    if isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)) and item:
                inner = yaml_lines(item, indent + 1)
                # "- " replaces the first line's indentation.
                lines.append(pad + "- " + inner[0][len(pad) + 2:])
                lines.extend(inner[1:])
            else:
                lines.append(f"{pad}- {yaml_scalar(item)}")
        return lines
    return [pad + yaml_scalar(value)]


_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}


def _plain_string(text):
    """True when `text` reads back as the same string without quotes."""
    return (bool(text) and text[0].isalpha() and text.lower() not in _YAML_WORDS
            and all(c.isalnum() or c in "-_./" for c in text))


def _plain_key(key):
    return key and all(c.isalnum() or c in "-_./" for c in key)


def write_yaml(path, objects, header):
    with open(path, "w", encoding="utf-8") as out:
        out.write(f"# {header}\n")
        for i, obj in enumerate(objects):
            if i:
                out.write("---\n")
            out.write("\n".join(yaml_lines(obj, 0)) + "\n")


def write_jsonl(path, objects):
    with open(path, "w", encoding="utf-8") as out:
        for obj in objects:
            out.write(json.dumps(obj, separators=(",", ":")) + "\n")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--devices-per-node", type=int, default=10)
    parser.add_argument("--pods", type=int, default=5000)
    parser.add_argument("--variant", choices=VARIANTS, default="template")
    parser.add_argument("--out", required=True, help="output directory")
    args = parser.parse_args(argv)
    if args.nodes < 1 or args.devices_per_node < 1 or args.pods < 1:
        parser.error("--nodes, --devices-per-node and --pods must be >= 1")
    if args.devices_per_node > 128:
        parser.error("--devices-per-node: a ResourceSlice holds at most 128 devices")

    os.makedirs(args.out, exist_ok=True)
    nodes = [node(i) for i in range(args.nodes)]
    pods = [pod(i) for i in range(args.pods)]
    if args.variant == "classic":
        template = classic_template()
        cluster = [namespace_object()] + classic_objects() + nodes
    else:
        slices = [resource_slice(i, args.devices_per_node)
                  for i in range(args.nodes)]
        template = claim_template(args.variant)
        cluster = [namespace_object(), device_class()] + nodes + slices
    summary = (f"{args.nodes} nodes x {args.devices_per_node} devices, "
               f"{args.pods} pods, variant {args.variant}")

    write_yaml(os.path.join(args.out, "cluster.yaml"), cluster,
               f"Cluster for the scheduler benchmark: {summary}.")
    write_yaml(os.path.join(args.out, "template.yaml"), [template],
               f"Claim template ({args.variant}).")
    write_yaml(os.path.join(args.out, "pods.yaml"), pods,
               f"{args.pods} pods, one claim each from {TEMPLATE_NAME}.")
    write_jsonl(os.path.join(args.out, "setup.jsonl"), cluster + [template])
    write_jsonl(os.path.join(args.out, "pods.jsonl"), pods)
    print(f"make_workload: wrote {args.out}: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
