#!/usr/bin/env python3
"""Client half of crash_test.sh: write storm, durability check, watch check.

Talks only to 127.0.0.1. Every loop is bounded in time.

  storm   --port P --namespace NS --ack-log FILE --seconds S --threads T --prefix X
          Creates ResourceClaims until the deadline or until the server goes
          away; appends "NAME RESOURCEVERSION" of every HTTP 201 to FILE,
          flushed at once.
  verify  --port P --namespace NS ACKLOG...
          Lists the namespace's claims and prints key=value lines: acked,
          missing, older (present with a smaller resourceVersion than
          acknowledged), max_acked_rv, list_rv. Exit 0 when missing=older=0.
  create  --port P --namespace NS --name N
          Creates one claim; prints rv=...; exit 0 on 201.
  watch   --port P --namespace NS --from-rv RV --timeout S
          Watches from RV, creates a new claim, and waits for its ADDED event.
          Checks that every event's resourceVersion is > RV and increasing.
          Exit 0 delivered, 1 not delivered or wrong, 3 answered 410 Expired.
"""
import argparse
import http.client
import json
import sys
import threading
import time

CLAIMS = "/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims"
HOST = "127.0.0.1"


def claim_manifest(name, namespace):
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"devices": {"requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}
        ]}},
    }


def create_claim(conn, namespace, name):
    """Returns (status, body dict or None)."""
    conn.request("POST", CLAIMS.format(ns=namespace),
                 json.dumps(claim_manifest(name, namespace)),
                 {"Content-Type": "application/json",
                  "Accept": "application/json"})
    response = conn.getresponse()
    data = response.read()
    try:
        body = json.loads(data)
    except ValueError:
        body = None
    return response.status, body


def storm(args):
    lock = threading.Lock()
    statuses = {}
    deadline = time.monotonic() + args.seconds
    with open(args.ack_log, "a", encoding="utf-8") as ack:
        def worker(index):
            conn = http.client.HTTPConnection(HOST, args.port, timeout=5)
            sequence = 0
            while time.monotonic() < deadline:
                name = f"{args.prefix}-{index}-{sequence}"
                sequence += 1
                try:
                    status, body = create_claim(conn, args.namespace, name)
                except (OSError, http.client.HTTPException):
                    with lock:
                        statuses["transport"] = statuses.get("transport", 0) + 1
                    return  # the server went away: the storm is over
                with lock:
                    statuses[status] = statuses.get(status, 0) + 1
                    if status == 201 and body is not None:
                        rv = body.get("metadata", {}).get("resourceVersion", "")
                        ack.write(f"{name} {rv}\n")
                        ack.flush()

        threads = [threading.Thread(target=worker, args=(i,))
                   for i in range(args.threads)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(args.seconds + 10)
    print("storm statuses:", statuses, file=sys.stderr)
    return 0


def read_acks(paths):
    acked = {}
    malformed = 0
    for path in paths:
        with open(path, encoding="utf-8") as ack:
            for line in ack:
                parts = line.split()
                if len(parts) != 2 or not parts[1].isdigit():
                    malformed += 1
                    continue
                acked[parts[0]] = int(parts[1])
    return acked, malformed


def verify(args):
    acked, malformed = read_acks(args.ack_logs)
    conn = http.client.HTTPConnection(HOST, args.port, timeout=30)
    conn.request("GET", CLAIMS.format(ns=args.namespace),
                 headers={"Accept": "application/json"})
    response = conn.getresponse()
    data = response.read()
    if response.status != 200:
        print(f"list_status={response.status}")
        print(data[:500].decode("utf-8", "replace"), file=sys.stderr)
        return 2
    listing = json.loads(data)
    present = {}
    for item in listing.get("items") or []:
        metadata = item.get("metadata", {})
        present[metadata.get("name")] = metadata.get("resourceVersion", "")
    missing = [name for name in acked if name not in present]
    older = [name for name, rv in acked.items()
             if name in present and
             (not str(present[name]).isdigit() or int(present[name]) < rv)]
    for name in missing[:5]:
        print(f"missing claim {name} (acknowledged rv {acked[name]})",
              file=sys.stderr)
    for name in older[:5]:
        print(f"claim {name} has rv {present[name]} < acknowledged "
              f"{acked[name]}", file=sys.stderr)
    print(f"acked={len(acked)}")
    print(f"malformed={malformed}")
    print(f"missing={len(missing)}")
    print(f"older={len(older)}")
    print(f"max_acked_rv={max(acked.values(), default=0)}")
    print(f"list_rv={listing.get('metadata', {}).get('resourceVersion', '')}")
    return 0 if not missing and not older and not malformed else 1


def create(args):
    conn = http.client.HTTPConnection(HOST, args.port, timeout=10)
    status, body = create_claim(conn, args.namespace, args.name)
    rv = (body or {}).get("metadata", {}).get("resourceVersion", "")
    print(f"status={status}")
    print(f"rv={rv}")
    return 0 if status == 201 else 1


def watch(args):
    from_rv = int(args.from_rv)
    conn = http.client.HTTPConnection(HOST, args.port, timeout=args.timeout)
    path = (CLAIMS.format(ns=args.namespace) +
            f"?watch=true&resourceVersion={from_rv}"
            f"&timeoutSeconds={int(args.timeout)}")
    conn.request("GET", path, headers={"Accept": "application/json"})
    name = f"crash-watch-{time.time_ns()}"
    created = {}

    def create_new():
        time.sleep(0.3)  # normally after the watch is registered; either way
        # the event is after from_rv and must be delivered.
        try:
            writer = http.client.HTTPConnection(HOST, args.port, timeout=10)
            created["status"], body = create_claim(writer, args.namespace, name)
            created["rv"] = (body or {}).get("metadata", {}).get(
                "resourceVersion", "")
        except (OSError, http.client.HTTPException) as error:
            created["error"] = str(error)

    writer_thread = threading.Thread(target=create_new)
    writer_thread.start()
    deadline = time.monotonic() + args.timeout
    try:
        response = conn.getresponse()
        if response.status == 410:
            print("watch_status=410")
            return 3
        if response.status != 200:
            print(f"watch_status={response.status}")
            print(response.read(500).decode("utf-8", "replace"), file=sys.stderr)
            return 1
        last = None
        bad = 0
        events = 0
        while time.monotonic() < deadline:
            line = response.readline()
            if not line:
                print("stream ended before the event arrived", file=sys.stderr)
                break
            if not line.strip():
                continue
            event = json.loads(line)
            kind = event.get("type")
            obj = event.get("object", {})
            if kind == "ERROR":
                print(f"ERROR event: {json.dumps(obj)[:300]}", file=sys.stderr)
                return 3 if obj.get("code") == 410 else 1
            if kind == "BOOKMARK":
                continue
            events += 1
            rv = int(obj.get("metadata", {}).get("resourceVersion", "0"))
            if rv <= from_rv or (last is not None and rv <= last):
                bad += 1
                print(f"event rv {rv} not after {last or from_rv}",
                      file=sys.stderr)
            last = rv
            if kind == "ADDED" and obj.get("metadata", {}).get("name") == name:
                print(f"events={events}")
                print(f"event_rv={rv}")
                print(f"created={created}", file=sys.stderr)
                same_rv = str(rv) == str(created.get("rv", rv))
                return 0 if bad == 0 and same_rv else 1
        print(f"new claim {name} not seen in {args.timeout}s "
              f"(events={events}, created={created})", file=sys.stderr)
        return 1
    except (OSError, http.client.HTTPException, ValueError) as error:
        print(f"watch failed: {error!r} (created={created})", file=sys.stderr)
        return 1
    finally:
        writer_thread.join(15)
        conn.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("storm")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--namespace", default="default")
    p.add_argument("--ack-log", required=True)
    p.add_argument("--seconds", type=float, default=6)
    p.add_argument("--threads", type=int, default=4)
    p.add_argument("--prefix", default="crash")
    p = sub.add_parser("verify")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--namespace", default="default")
    p.add_argument("ack_logs", nargs="+")
    p = sub.add_parser("create")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--namespace", default="default")
    p.add_argument("--name", required=True)
    p = sub.add_parser("watch")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--namespace", default="default")
    p.add_argument("--from-rv", required=True)
    p.add_argument("--timeout", type=float, default=10)
    args = parser.parse_args()
    return {"storm": storm, "verify": verify, "create": create,
            "watch": watch}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
