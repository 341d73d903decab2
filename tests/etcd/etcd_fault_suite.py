#!/usr/bin/env python3
"""Several dralloc API servers on one etcd cluster, under faults.

Starts a three-member etcd cluster (Debian's etcd-server) and two
`dralloc apiserver` processes on it, all on free loopback ports, then:

  * writes through one server are seen by the other's list and watch;
  * a write based on a stale resourceVersion gets 409 whichever server takes
    it;
  * a write storm through both servers survives killing the etcd leader,
    stopping a member (SIGSTOP) past the election timeout, and kill -9 of
    one API server: every acknowledged write is present afterwards on both
    servers, no name is acknowledged twice, and a watcher on the surviving
    server saw every event in revision order or got 410 and listed again;
  * an API server whose watch fell behind a compaction (its process
    stopped meanwhile) catches up by listing again;
  * an API server started while etcd is unreachable comes up once etcd
    does; while etcd has no quorum, writes fail with 5xx and a message that
    names etcd, and succeed again after it recovers, without restarts;
  * `dralloc migrate` copies a SQLite store to etcd and back with every
    object intact (all but resourceVersion), and refuses a non-empty
    destination.

Usage: etcd_fault_suite.py DRALLOC_BINARY
Prints PASS/FAIL per check and "N passed, M failed"; exits 1 on a failure.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

DEVICECLASSES = "/apis/resource.k8s.io/v1/deviceclasses"
passed = 0
failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"PASS: {name}", flush=True)
    else:
        failed += 1
        print(f"FAIL: {name}" + (f"\n    {detail}" if detail else ""), flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def until(predicate, timeout, step=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


class Etcd:
    def __init__(self, work, members):
        self.work = work
        self.names = [f"e{i}" for i in range(members)]
        self.client = [free_port() for _ in self.names]
        self.peer = [free_port() for _ in self.names]
        self.procs = [None] * members
        self.initial = ",".join(
            f"{n}=http://127.0.0.1:{p}" for n, p in zip(self.names, self.peer))
        for i in range(members):
            self.launch(i, "new")
        for i in range(members):
            self.await_healthy(i)

    def urls(self):
        return ",".join(f"http://127.0.0.1:{p}" for p in self.client)

    def launch(self, i, state):
        url = f"http://127.0.0.1:{self.client[i]}"
        peer = f"http://127.0.0.1:{self.peer[i]}"
        self.procs[i] = subprocess.Popen(
            ["etcd", f"--name={self.names[i]}",
             f"--data-dir={self.work}/etcd-{self.names[i]}",
             f"--listen-client-urls={url}", f"--advertise-client-urls={url}",
             f"--listen-peer-urls={peer}",
             f"--initial-advertise-peer-urls={peer}",
             f"--initial-cluster={self.initial}",
             f"--initial-cluster-state={state}",
             "--initial-cluster-token=dralloc-fault", "--logger=zap",
             f"--log-outputs={self.work}/etcd-{self.names[i]}.log"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def healthy(self, i):
        try:
            with urllib.request.urlopen(
                    f"http://127.0.0.1:{self.client[i]}/health", timeout=1) as r:
                return json.load(r).get("health") == "true"
        except Exception:
            return False

    def await_healthy(self, i, timeout=30):
        if not until(lambda: self.healthy(i), timeout):
            raise RuntimeError(f"etcd member {self.names[i]} not healthy")

    def leader(self):
        for i, port in enumerate(self.client):
            if self.procs[i] is None or self.procs[i].poll() is not None:
                continue
            out = subprocess.run(
                ["etcdctl", f"--endpoints=http://127.0.0.1:{port}",
                 "endpoint", "status", "-w", "json"],
                env=dict(os.environ, ETCDCTL_API="3"), capture_output=True,
                text=True, timeout=10)
            try:
                status = json.loads(out.stdout)[0]["Status"]
                if status["header"]["member_id"] == status["leader"]:
                    return i
            except Exception:
                continue
        return None

    def etcdctl(self, *args):
        endpoints = ",".join(
            f"http://127.0.0.1:{p}" for i, p in enumerate(self.client)
            if self.procs[i] is not None and self.procs[i].poll() is None)
        return subprocess.run(["etcdctl", f"--endpoints={endpoints}", *args],
                              env=dict(os.environ, ETCDCTL_API="3"),
                              capture_output=True, text=True, timeout=30)

    def stop(self):
        for p in self.procs:
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGCONT)
                p.kill()
                p.wait()


class ApiServer:
    def __init__(self, dralloc, work, name, storage, wait=True, extra=()):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(f"{work}/{name}.log", "w")
        self.proc = subprocess.Popen(
            [dralloc, "apiserver", "--listen", f"127.0.0.1:{self.port}",
             "--storage", storage, "--etcd-compaction-interval", "0", *extra],
            stdout=self.log, stderr=self.log)
        if wait and not until(self.ready, 40):
            raise RuntimeError(f"API server {name} did not start")

    def ready(self):
        try:
            with urllib.request.urlopen(self.url + "/readyz", timeout=1) as r:
                return r.status == 200
        except Exception:
            return False

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait()


def request(server, method, path, body=None, timeout=15):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(server.url + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        try:
            return e.code, json.load(e)
        except Exception:
            return e.code, {}
    except Exception as e:  # connection refused, reset, timeout
        return 0, {"message": str(e)}


def device_class(name):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": name, "labels": {"suite": "fault"}}}


def names(server):
    code, body = request(server, "GET", DEVICECLASSES)
    if code != 200:
        return None
    return {item["metadata"]["name"] for item in body["items"]}


class Watcher(threading.Thread):
    """Watches deviceclasses on one server from a revision; relists on 410.

    Records every name seen and whether revisions rose within each watch."""

    def __init__(self, server, revision):
        super().__init__(daemon=True)
        self.server = server
        self.revision = revision
        self.seen = set()
        self.in_order = True
        self.relists = 0
        self.stopping = False

    def run(self):
        while not self.stopping:
            try:
                self.watch_once()
            except Exception:
                time.sleep(0.2)

    def relist(self):
        code, body = request(self.server, "GET", DEVICECLASSES)
        if code == 200:
            self.relists += 1
            self.seen |= {i["metadata"]["name"] for i in body["items"]}
            self.revision = body["metadata"]["resourceVersion"]

    def watch_once(self):
        url = (f"{self.server.url}{DEVICECLASSES}?watch=1&allowWatchBookmarks=true"
               f"&resourceVersion={self.revision}&timeoutSeconds=5")
        last = int(self.revision)
        with urllib.request.urlopen(url, timeout=10) as stream:
            for line in stream:
                event = json.loads(line)
                obj = event["object"]
                if event["type"] == "ERROR":
                    if obj.get("code") == 410:
                        self.relist()
                    return
                rv = int(obj["metadata"]["resourceVersion"])
                if event["type"] != "BOOKMARK":
                    if rv <= last:
                        self.in_order = False
                    self.seen.add(obj["metadata"]["name"])
                last = max(last, rv)
                self.revision = str(last)


class Storm:
    """Writers creating uniquely named DeviceClasses through both servers."""

    def __init__(self, servers, writers=6):
        self.servers = servers
        self.acked = []
        self.failed = 0
        self.errors = []
        self.lock = threading.Lock()
        self.running = True
        self.threads = [threading.Thread(target=self.write, args=(w,), daemon=True)
                        for w in range(writers)]
        self.counter = 0

    def start(self):
        for t in self.threads:
            t.start()

    def write(self, writer):
        i = 0
        while self.running:
            name = f"storm-{writer}-{i}"
            server = self.servers[(writer + i) % len(self.servers)]
            i += 1
            code, body = request(server, "POST", DEVICECLASSES, device_class(name))
            with self.lock:
                if code == 201:
                    self.acked.append(name)
                else:
                    self.failed += 1
                    if code != 0:
                        self.errors.append((code, body.get("message", "")))
            if code != 201:
                time.sleep(0.05)

    def stop(self):
        self.running = False
        for t in self.threads:
            t.join()


def main():
    dralloc = os.path.realpath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="dralloc-etcd-fault.")
    etcd = servers = None
    try:
        etcd = Etcd(work, 3)
        storage = f"etcd:{etcd.urls()}"
        a = ApiServer(dralloc, work, "apiserver-a", storage)
        b = ApiServer(dralloc, work, "apiserver-b", storage)
        servers = [a, b]
        print(f"etcd {etcd.urls()}; API servers {a.url} {b.url}", flush=True)
        run_checks(dralloc, work, etcd, a, b, servers)
    finally:
        for s in servers or []:
            s.stop()
        if etcd:
            etcd.stop()
        if failed == 0 and not os.environ.get("KEEP_WORKDIR"):
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work directory kept: {work}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(0 if failed == 0 else 1)


def run_checks(dralloc, work, etcd, a, b, servers):
    # Writes through one server are seen by the other.
    code, created = request(a, "POST", DEVICECLASSES, device_class("shared"))
    check("create through server A", code == 201, created)
    check("server B reads it at once (a consistent read)",
          request(b, "GET", f"{DEVICECLASSES}/shared")[0] == 200)
    check("server B lists it", "shared" in (names(b) or set()))
    rv = created["metadata"]["resourceVersion"]

    # Optimistic concurrency across servers.
    update = dict(created)
    update["metadata"] = dict(created["metadata"], labels={"v": "1"})
    code, updated = request(b, "PUT", f"{DEVICECLASSES}/shared", update)
    check("update through B with A's resourceVersion", code == 200, updated)
    stale = dict(created)
    stale["metadata"] = dict(created["metadata"], labels={"v": "2"})
    code, body = request(a, "PUT", f"{DEVICECLASSES}/shared", stale)
    check("stale resourceVersion through A gets 409", code == 409, (code, body))
    code, body = request(b, "PUT", f"{DEVICECLASSES}/shared", stale)
    check("stale resourceVersion through B gets 409", code == 409, (code, body))

    device_guard_checks(a, b)

    # The storm, with a watcher on B from before it.
    _, listing = request(b, "GET", DEVICECLASSES)
    watcher = Watcher(b, listing["metadata"]["resourceVersion"])
    watcher.start()
    storm = Storm(servers)
    storm.start()
    time.sleep(2)
    leader = etcd.leader()
    check("an etcd leader is known", leader is not None)
    if leader is not None:
        etcd.procs[leader].kill()
        etcd.procs[leader].wait()
        time.sleep(4)
        etcd.launch(leader, "existing")
        etcd.await_healthy(leader)
    time.sleep(2)
    paused = (leader + 1) % 3 if leader is not None else 0
    etcd.procs[paused].send_signal(signal.SIGSTOP)
    time.sleep(3)  # longer than the 1 s election timeout
    etcd.procs[paused].send_signal(signal.SIGCONT)
    time.sleep(2)
    a.proc.kill()  # kill -9 of one API server mid-storm
    a.proc.wait()
    time.sleep(2)
    storm.stop()
    acked = storm.acked
    print(f"storm: {len(acked)} writes acknowledged, {storm.failed} failed", flush=True)
    if storm.errors:
        print(f"  sample errors: {storm.errors[:3]}", flush=True)
    check("writes kept being acknowledged through the faults", len(acked) > 100,
          f"{len(acked)} acked")
    check("no name acknowledged twice", len(acked) == len(set(acked)))
    present_b = names(b)
    missing = set(acked) - (present_b or set())
    check("every acknowledged write is present on B", present_b is not None and
          not missing, f"{len(missing)} missing, e.g. {sorted(missing)[:3]}")
    a2 = ApiServer(dralloc, work, "apiserver-a2", f"etcd:{etcd.urls()}")
    servers.append(a2)
    present_a = names(a2)
    check("a restarted server A lists the same objects",
          present_a == present_b, f"{len(present_a or [])} vs {len(present_b or [])}")
    until(lambda: set(acked) <= watcher.seen, 10)
    watcher.stopping = True
    check("the watcher on B saw every acknowledged write",
          set(acked) <= watcher.seen,
          f"{len(set(acked) - watcher.seen)} unseen; relists {watcher.relists}")
    check("the watcher saw events in revision order", watcher.in_order)

    compaction_check(etcd, a2, b)
    migrate_checks(dralloc, work, etcd)
    unavailable_checks(dralloc, work, etcd, b)


CLAIMS = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims"


def claim(name):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"devices": {"requests": [
                {"name": "gpu", "exactly": {"deviceClassName": "shared"}}]}}}


def allocate(server, name, device):
    """PUT the claim's status with `device` allocated (None: deallocated)."""
    code, current = request(server, "GET", f"{CLAIMS}/{name}")
    if code != 200:
        return code, current
    status = {}
    if device is not None:
        status = {"allocation": {"devices": {"results": [
            {"request": "gpu", "driver": "gpu.example.com", "pool": "pool",
             "device": device}]}}}
    current["status"] = status
    return request(server, "PUT", f"{CLAIMS}/{name}/status", current)


def device_guard_checks(a, b):
    for name in ("c1", "c2"):
        request(a, "POST", CLAIMS, claim(name))
    until(lambda: request(b, "GET", f"{CLAIMS}/c2")[0] == 200, 5)
    code, body = allocate(a, "c1", "gpu-0")
    check("claim c1 gets gpu-0 through A", code == 200, (code, body))
    code, body = allocate(b, "c2", "gpu-0")
    check("claim c2 cannot take gpu-0 through B (409 naming c1)",
          code == 409 and "default/c1" in body.get("message", ""), (code, body))
    code, body = allocate(a, "c1", None)
    check("c1 gives gpu-0 back through A", code == 200, (code, body))
    code, body = allocate(b, "c2", "gpu-0")
    check("then c2 takes gpu-0 through B", code == 200, (code, body))
    code, _ = request(a, "DELETE", f"{CLAIMS}/c2")
    until(lambda: request(a, "GET", f"{CLAIMS}/c2")[0] == 404, 5)
    code, body = allocate(b, "c1", "gpu-0")
    check("deleting c2 released gpu-0", code == 200, (code, body))

    # Races: two claims, two servers, one device, at the same moment.
    winners = []
    for round_ in range(20):
        names = (f"race-a-{round_}", f"race-b-{round_}")
        request(a, "POST", CLAIMS, claim(names[0]))
        request(b, "POST", CLAIMS, claim(names[1]))
        until(lambda: all(request(s, "GET", f"{CLAIMS}/{n}")[0] == 200
                          for s in (a, b) for n in names), 5)
        results = [None, None]
        threads = [threading.Thread(target=lambda i=i, s=s: results.__setitem__(
            i, allocate(s, names[i], f"race-{round_}")[0])) for i, s in enumerate((a, b))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        winners.append(sorted(results))
    check("20 simultaneous allocations of one device through two servers: "
          "exactly one wins each", all(w == [200, 409] for w in winners), winners)


def compaction_check(etcd, a2, b):
    # B's process stops while writes go on and etcd compacts past B.
    b.proc.send_signal(signal.SIGSTOP)
    for i in range(300):
        request(a2, "POST", DEVICECLASSES, device_class(f"behind-{i}"))
    _, listing = request(a2, "GET", DEVICECLASSES)
    revision = listing["metadata"]["resourceVersion"]
    out = etcd.etcdctl("compact", revision)
    check("etcd compacted while server B was stopped", out.returncode == 0, out.stderr)
    b.proc.send_signal(signal.SIGCONT)
    expected = names(a2)
    check("server B caught up after the compaction",
          until(lambda: names(b) == expected, 20))


def snapshot(server):
    """Every object the server lists, without resourceVersions."""
    out = {}
    for path in ("/api/v1/namespaces", DEVICECLASSES,
                 "/apis/resource.k8s.io/v1/resourceclaims"):
        code, body = request(server, "GET", path)
        if code != 200:
            return None
        for item in body["items"]:
            item["metadata"].pop("resourceVersion", None)
            meta = item["metadata"]
            out[(path, meta.get("namespace", ""), meta["name"])] = item
    return out


def migrate_checks(dralloc, work, etcd):
    source = ApiServer(dralloc, work, "apiserver-sqlite", f"sqlite:{work}/sqlite")
    for i in range(20):
        request(source, "POST", DEVICECLASSES, device_class(f"migrated-{i}"))
    request(source, "POST", CLAIMS, claim("migrated-claim"))
    allocate(source, "migrated-claim", "gpu-9")
    before = snapshot(source)
    source.stop()
    to_etcd = f"etcd:{etcd.urls()}"
    out = subprocess.run([dralloc, "migrate", "--from", f"sqlite:{work}/sqlite",
                          "--to", to_etcd, "--etcd-prefix", "/migrated"],
                         capture_output=True, text=True, timeout=120)
    check("dralloc migrate sqlite -> etcd", out.returncode == 0, out.stderr)
    again = subprocess.run([dralloc, "migrate", "--from", f"sqlite:{work}/sqlite",
                            "--to", to_etcd, "--etcd-prefix", "/migrated"],
                           capture_output=True, text=True, timeout=120)
    check("migrate refuses a non-empty destination",
          again.returncode == 1 and "migrate into an empty store" in again.stderr,
          again.stderr)
    on_etcd = ApiServer(dralloc, work, "apiserver-migrated", to_etcd,
                        extra=("--etcd-prefix", "/migrated"))
    after = snapshot(on_etcd)
    on_etcd.stop()
    check("every object arrived intact on etcd", before is not None and after == before,
          f"{len(before or {})} before, {len(after or {})} after")
    back = subprocess.run([dralloc, "migrate", "--from", to_etcd, "--to",
                           f"sqlite:{work}/sqlite-back", "--etcd-prefix", "/migrated"],
                          capture_output=True, text=True, timeout=120)
    check("dralloc migrate etcd -> sqlite", back.returncode == 0, back.stderr)
    returned = ApiServer(dralloc, work, "apiserver-back", f"sqlite:{work}/sqlite-back")
    round_trip = snapshot(returned)
    returned.stop()
    check("and back again intact", round_trip == before)


def unavailable_checks(dralloc, work, etcd, b):
    # No quorum: two of three members stopped.
    etcd.procs[1].send_signal(signal.SIGSTOP)
    etcd.procs[2].send_signal(signal.SIGSTOP)
    code, body = request(b, "POST", DEVICECLASSES, device_class("no-quorum"),
                         timeout=40)
    check("without quorum a write fails with 5xx naming etcd",
          500 <= code < 600 and "etcd" in body.get("message", ""), (code, body))
    etcd.procs[1].send_signal(signal.SIGCONT)
    etcd.procs[2].send_signal(signal.SIGCONT)
    ok = until(lambda: request(b, "POST", DEVICECLASSES,
                               device_class(f"recovered-{time.monotonic_ns()}"))[0] == 201,
               30, step=0.5)
    check("writes succeed again once etcd recovers, without restarts", ok)

    # An API server started before its etcd exists.
    late = Etcd.__new__(Etcd)
    late.work, late.names = work, ["late"]
    late.client, late.peer, late.procs = [free_port()], [free_port()], [None]
    late.initial = f"late=http://127.0.0.1:{late.peer[0]}"
    server = ApiServer(dralloc, work, "apiserver-early",
                       f"etcd:http://127.0.0.1:{late.client[0]}", wait=False)
    time.sleep(3)
    check("the API server waits while etcd is unreachable",
          server.proc.poll() is None and not server.ready())
    late.launch(0, "new")
    try:
        late.await_healthy(0)
        check("it serves once etcd comes up", until(server.ready, 30))
    finally:
        server.stop()
        late.stop()


if __name__ == "__main__":
    main()
