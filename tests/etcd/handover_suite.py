#!/usr/bin/env python3
"""Two `dralloc serve` processes on one three-member etcd cluster schedule
upstream's scheduler_perf workload (500 nodes, 5,000 pods with claims from a
template) with leader election on, and the leader is stopped midway.

Server B starts first and takes the scheduler and controller leases; server A
follows as a candidate. `dralloc_api_load schedule-pods` creates the cluster
and the pods through A and waits for every binding. When about half the pods
are bound, B gets SIGTERM: it releases its leases and A takes over. Checks:
every pod is bound, no device is in two claims, A holds both leases
afterwards, and the hand-over took less than the lease duration.

Usage: handover_suite.py DRALLOC DRALLOC_API_LOAD [--pods N] [--nodes N]
Prints PASS/FAIL per check and "N passed, M failed"; exits 1 on a failure.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import etcd_fault_suite as suite  # noqa: E402  (Etcd, request, until, check)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"
LEASE_SECONDS = 15  # upstream's default
ELECTION = ["--leader-elect", "--leader-elect-retry-period", "500ms"]


class Serve:
    def __init__(self, dralloc, work, name, storage):
        self.name = name
        self.port = suite.free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(f"{work}/{name}.log", "w")
        self.proc = subprocess.Popen(
            [dralloc, "serve", "--listen", f"127.0.0.1:{self.port}",
             "--storage", storage, *ELECTION],
            stdout=self.log, stderr=self.log)
        if not suite.until(self.ready, 40):
            raise RuntimeError(f"serve {name} did not start")

    ready = suite.ApiServer.ready

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def holders(server):
    code, body = suite.request(server, "GET", LEASES)
    if code != 200:
        return {}
    return {item["metadata"]["name"]: item["spec"].get("holderIdentity", "")
            for item in body["items"]}


def bound_pods(server):
    code, body = suite.request(server, "GET", "/api/v1/pods", timeout=30)
    if code != 200:
        return 0
    return sum(1 for p in body["items"] if p["spec"].get("nodeName"))


def devices_in_two_claims(server):
    code, body = suite.request(
        server, "GET", "/apis/resource.k8s.io/v1/resourceclaims", timeout=60)
    if code != 200:
        return None
    owner = {}
    doubles = 0
    for item in body["items"]:
        allocation = (item.get("status") or {}).get("allocation") or {}
        for r in allocation.get("devices", {}).get("results", []):
            if r.get("adminAccess") or r.get("shareID"):
                continue
            device = (r["driver"], r["pool"], r["device"])
            if device in owner:
                doubles += 1
            owner[device] = item["metadata"]["name"]
    return doubles


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dralloc")
    parser.add_argument("load")
    parser.add_argument("--pods", type=int, default=5000)
    parser.add_argument("--nodes", type=int, default=500)
    args = parser.parse_args()
    dralloc = os.path.realpath(args.dralloc)
    work = tempfile.mkdtemp(prefix="dralloc-handover.")
    etcd = None
    servers = []
    try:
        subprocess.run([sys.executable, f"{REPO}/bench/scheduler/make_workload.py",
                        "--nodes", str(args.nodes), "--pods", str(args.pods),
                        "--variant", "template", "--out", f"{work}/workload"],
                       check=True, capture_output=True)
        etcd = suite.Etcd(work, 3)
        storage = f"etcd:{etcd.urls()}"
        b = Serve(dralloc, work, "serve-b", storage)
        servers.append(b)
        suite.check("serve B takes both leases",
                    suite.until(lambda: len(holders(b)) == 2 and all(holders(b).values()), 20),
                    holders(b))
        b_identities = set(holders(b).values())
        a = Serve(dralloc, work, "serve-a", storage)
        servers.append(a)
        run(args, work, etcd, a, b, b_identities)
    finally:
        for s in servers:
            s.stop()
        if etcd:
            etcd.stop()
        if suite.failed == 0 and not os.environ.get("KEEP_WORKDIR"):
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work directory kept: {work}")
    print(f"{suite.passed} passed, {suite.failed} failed")
    sys.exit(0 if suite.failed == 0 else 1)


def run(args, work, etcd, a, b, b_identities):
    report_path = f"{work}/report.json"
    with open(report_path, "w") as report, open(f"{work}/load.err", "w") as err:
        load = subprocess.Popen(
            [os.path.realpath(args.load), "schedule-pods", "--server", a.url,
             "--setup", f"{work}/workload/setup.jsonl",
             "--pods", f"{work}/workload/pods.jsonl", "--clients", "8",
             "--timeout", "600", "--json"], stdout=report, stderr=err)
    halfway = suite.until(lambda: bound_pods(a) >= args.pods // 2, 600, step=0.5)
    suite.check("half the pods bound with B leading", halfway)
    stopped_at = time.monotonic()
    b.proc.send_signal(signal.SIGTERM)
    took_over = suite.until(
        lambda: len(holders(a)) == 2 and not (set(holders(a).values()) & b_identities)
        and all(holders(a).values()), 30, step=0.2)
    handover = time.monotonic() - stopped_at
    # Under the lease duration: B released its leases, A did not wait for
    # them to expire.
    suite.check(f"A took both leases {handover:.1f} s after B's SIGTERM "
                f"(lease duration {LEASE_SECONDS} s)",
                took_over and handover < LEASE_SECONDS, holders(a))
    b.proc.wait(timeout=30)
    suite.check("B exited cleanly on SIGTERM", b.proc.returncode == 0, b.proc.returncode)
    code = load.wait(timeout=900)
    try:
        with open(report_path) as f:
            report = json.load(f)
    except Exception:
        report = {}
    print(f"load: exit {code}, bound {report.get('pods_bound')}/{report.get('pods')}, "
          f"{report.get('throughput_pods_per_second', 0):.0f} pods/s", flush=True)
    suite.check(f"all {args.pods} pods bound", report.get("pods_bound") == args.pods,
                open(f"{work}/load.err").read()[-500:])
    suite.check("the load generator found no device allocated twice",
                report.get("double_allocated_devices") == 0, report.get("problems"))
    doubles = devices_in_two_claims(a)
    suite.check("no device is in two claims (listed afterwards)", doubles == 0, doubles)


if __name__ == "__main__":
    main()
