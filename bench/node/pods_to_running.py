#!/usr/bin/env python3
"""Creates N pods of one GPU each and times bind -> Running per pod.

Used by bench/node/run.sh (see README.md there). Talks plain HTTP/1.1 to a
loopback `dralloc serve`:

1. Creates (409 is fine) the namespace, the DeviceClass gpu.example.com and
   a ResourceClaimTemplate of one GPU; waits until node NODE is Ready and its
   ResourceSlices list at least N devices (each slice is also checked: pool
   name = node, driver gpu.example.com, device names unique).
2. Lists the namespace's pods and watches them from the list's
   resourceVersion on its own thread, stamping every event with the client's
   monotonic clock (the API's condition timestamps are whole seconds).
3. Creates the N pods from --clients connections, as fast as they go.
4. Per pod: bind = first event with spec.nodeName set, running = first
   event with status.phase Running. Waits until all pods are Running or
   --timeout seconds pass.

Prints one JSON object on stdout: pods, running, bound, create_s (first to
last create sent/answered), bind_s (first to last bind), pods_per_s
(running / (last Running - first bind)), first_half_per_s /
second_half_per_s (the same over each half of the Running pods), p50_ms /
p99_ms / max_ms of bind -> Running. Exit status 0 when all pods ran, 1 otherwise (the JSON says
how many did), 2 when setup failed.
"""

import argparse
import http.client
import json
import math
import statistics
import sys
import threading
import time
import urllib.parse

DRIVER = "gpu.example.com"


class Api:
    """One kept-alive connection to the server; not thread-safe."""

    def __init__(self, server, timeout=30):
        url = urllib.parse.urlparse(server)
        self.host, self.port = url.hostname, url.port
        self.timeout = timeout
        self.conn = None

    def request(self, method, path, body=None):
        """Returns (status, parsed JSON or None). Retries a GET once."""
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(
                    self.host, self.port, timeout=self.timeout)
            try:
                data = None if body is None else json.dumps(body)
                headers = {"Content-Type": "application/json"} if data else {}
                self.conn.request(method, path, body=data, headers=headers)
                resp = self.conn.getresponse()
                raw = resp.read()
                return resp.status, (json.loads(raw) if raw else None)
            except (OSError, http.client.HTTPException):
                self.conn.close()
                self.conn = None
                if method != "GET" or attempt == 1:
                    raise
        raise AssertionError("unreachable")


def setup_objects(namespace):
    template = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "one-gpu", "namespace": namespace},
        "spec": {"spec": {"devices": {"requests": [{
            "name": "gpu",
            "exactly": {"deviceClassName": DRIVER}}]}}},
    }
    return [
        ("/api/v1/namespaces",
         {"apiVersion": "v1", "kind": "Namespace",
          "metadata": {"name": namespace}}),
        ("/apis/resource.k8s.io/v1/deviceclasses",
         {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
          "metadata": {"name": DRIVER},
          "spec": {"selectors": [{"cel": {
              "expression": 'device.driver == "%s"' % DRIVER}}]}}),
        ("/apis/resource.k8s.io/v1/namespaces/%s/resourceclaimtemplates"
         % namespace, template),
    ]


def pod_manifest(namespace, name):
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "restartPolicy": "Never",
            "resourceClaims": [{"name": "gpu",
                                "resourceClaimTemplateName": "one-gpu"}],
            "containers": [{"name": "ctr", "image": "busybox",
                            "resources": {"claims": [{"name": "gpu"}]}}],
        },
    }


def node_ready(api, node):
    status, obj = api.request("GET", "/api/v1/nodes/" + node)
    if status != 200:
        return False
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in obj.get("status", {}).get("conditions", []))


def slice_devices(api, node):
    """Devices of NODE's slices; raises ValueError on an invalid slice."""
    status, obj = api.request("GET", "/apis/resource.k8s.io/v1/resourceslices")
    if status != 200:
        return 0
    names = set()
    for s in obj.get("items", []):
        spec = s.get("spec", {})
        if spec.get("nodeName") != node:
            continue
        where = "resourceslice %s" % s["metadata"]["name"]
        if spec.get("driver") != DRIVER:
            raise ValueError("%s: spec.driver: %r" % (where, spec.get("driver")))
        if spec.get("pool", {}).get("name") != node:
            raise ValueError("%s: spec.pool.name: %r, want %r"
                             % (where, spec.get("pool", {}).get("name"), node))
        for i, d in enumerate(spec.get("devices", [])):
            if d["name"] in names:
                raise ValueError("%s: spec.devices[%d].name: Duplicate value: %r"
                                 % (where, i, d["name"]))
            names.add(d["name"])
    return len(names)


def setup(args):
    api = Api(args.server)
    for path, obj in setup_objects(args.namespace):
        status, body = api.request("POST", path, obj)
        if status not in (200, 201, 409):
            raise RuntimeError("POST %s: HTTP %d: %s" % (path, status, body))
    deadline = time.monotonic() + args.setup_timeout
    devices = 0
    while time.monotonic() < deadline:
        devices = slice_devices(api, args.node)
        if devices >= args.pods and node_ready(api, args.node):
            return devices
        time.sleep(0.1)
    raise RuntimeError("node %s not Ready with %d devices after %ds (has %d)"
                       % (args.node, args.pods, args.setup_timeout, devices))


class PodWatch(threading.Thread):
    """Stamps when each pod is first seen bound and first seen Running."""

    def __init__(self, server, namespace):
        super().__init__(daemon=True)
        api = Api(server)
        status, obj = api.request("GET", "/api/v1/namespaces/%s/pods" % namespace)
        if status != 200:
            raise RuntimeError("list pods: HTTP %d" % status)
        url = urllib.parse.urlparse(server)
        self.conn = http.client.HTTPConnection(url.hostname, url.port,
                                               timeout=None)
        self.conn.request(
            "GET", "/api/v1/namespaces/%s/pods?watch=1&resourceVersion=%s"
            "&allowWatchBookmarks=true"
            % (namespace, obj["metadata"]["resourceVersion"]))
        self.resp = self.conn.getresponse()
        if self.resp.status != 200:
            raise RuntimeError("watch pods: HTTP %d" % self.resp.status)
        self.lock = threading.Lock()
        self.bound = {}
        self.running = {}
        self.error = None

    def run(self):
        try:
            while True:
                line = self.resp.readline()
                if not line:
                    self.error = "watch closed by the server"
                    return
                now = time.monotonic()
                if line.strip():
                    self.observe(json.loads(line), now)
        except (OSError, ValueError, http.client.HTTPException) as e:
            self.error = "watch: %s" % e

    def observe(self, event, now):
        if event.get("type") not in ("ADDED", "MODIFIED"):
            return
        pod = event["object"]
        name = pod["metadata"]["name"]
        with self.lock:
            if pod.get("spec", {}).get("nodeName"):
                self.bound.setdefault(name, now)
            if pod.get("status", {}).get("phase") == "Running":
                self.running.setdefault(name, now)

    def counts(self):
        with self.lock:
            return len(self.bound), len(self.running)


def create_pods(args, names):
    """POSTs the pods from args.clients threads; returns (first, last) time."""
    errors = []
    stamps = []
    lock = threading.Lock()

    def worker(part):
        api = Api(args.server)
        for name in part:
            sent = time.monotonic()
            status, body = api.request("POST", "/api/v1/namespaces/%s/pods"
                                       % args.namespace,
                                       pod_manifest(args.namespace, name))
            with lock:
                stamps.extend((sent, time.monotonic()))
                if status not in (200, 201):
                    errors.append("pod %s: HTTP %d: %s" % (name, status, body))

    threads = [threading.Thread(target=worker, args=(names[i::args.clients],))
               for i in range(args.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise RuntimeError("%d creates failed, first: %s" % (len(errors),
                                                             errors[0]))
    return min(stamps), max(stamps)


def percentile(sorted_values, p):
    """Nearest-rank percentile of an ascending list (None when empty)."""
    if not sorted_values:
        return None
    rank = math.ceil(p / 100.0 * len(sorted_values))
    return sorted_values[max(0, min(len(sorted_values), rank) - 1)]


def report(args, watch, create_span):
    with watch.lock:
        bound, running = dict(watch.bound), dict(watch.running)
    latencies = sorted((running[n] - bound[n]) * 1e3
                       for n in running if n in bound)
    result = {"pods": args.pods, "bound": len(bound), "running": len(running),
              "create_s": round(create_span[1] - create_span[0], 3)}
    if bound:
        result["bind_s"] = round(max(bound.values()) - min(bound.values()), 3)
    if running and bound:
        span = max(running.values()) - min(bound.values())
        result["pods_per_s"] = round(len(running) / span, 1) if span > 0 else None
        # Rate over the first and the second half of the Running pods: a
        # per-pod cost that grows with the pods already on the node shows.
        times = sorted(running.values())
        half = len(times) // 2
        if half > 0 and times[half] > times[0] and times[-1] > times[half]:
            result["first_half_per_s"] = round(
                half / (times[half] - min(bound.values())), 1)
            result["second_half_per_s"] = round(
                (len(times) - half) / (times[-1] - times[half]), 1)
    if latencies:
        result.update(p50_ms=round(statistics.median(latencies), 2),
                      p99_ms=round(percentile(latencies, 99), 2),
                      max_ms=round(latencies[-1], 2))
    if watch.error and len(running) < args.pods:
        result["error"] = watch.error
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True)
    parser.add_argument("--node", required=True)
    parser.add_argument("--pods", type=int, default=1000)
    parser.add_argument("--namespace", default="bench")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--setup-timeout", type=int, default=60)
    args = parser.parse_args()

    try:
        setup(args)
        watch = PodWatch(args.server, args.namespace)
    except (RuntimeError, ValueError, OSError, http.client.HTTPException) as e:
        print("pods_to_running: setup: %s" % e, file=sys.stderr)
        return 2
    watch.start()
    names = ["pod-%05d" % i for i in range(args.pods)]
    try:
        create_span = create_pods(args, names)
    except (RuntimeError, OSError, http.client.HTTPException) as e:
        print("pods_to_running: %s" % e, file=sys.stderr)
        return 1
    deadline = time.monotonic() + args.timeout
    while time.monotonic() < deadline and watch.is_alive():
        if watch.counts()[1] >= args.pods:
            break
        time.sleep(0.05)
    result = report(args, watch, create_span)
    print(json.dumps(result))
    return 0 if result["running"] == args.pods else 1


if __name__ == "__main__":
    sys.exit(main())
