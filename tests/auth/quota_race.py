"""Races N creates of one-device claims against a count quota over TLS.

Usage: quota_race.py SERVER_URL ADMIN_KUBECONFIG NAMESPACE N LIMIT
Exits 0 when exactly LIMIT creates were admitted (201) and the others were
refused with 403 "exceeded quota", and the namespace holds LIMIT claims.
"""
import base64
import concurrent.futures
import json
import os
import re
import ssl
import sys
import tempfile
import urllib.error
import urllib.request


def kubeconfig_files(path, directory):
    text = open(path).read()
    files = {}
    for key in ("certificate-authority-data", "client-certificate-data",
                "client-key-data"):
        match = re.search(key + r":\s*\"?([A-Za-z0-9+/=]+)", text)
        if not match:
            sys.exit(f"{path}: no {key}")
        name = os.path.join(directory, key)
        with open(name, "wb") as f:
            f.write(base64.b64decode(match.group(1)))
        files[key] = name
    return files


def main():
    server, config, namespace, n, limit = sys.argv[1:6]
    n, limit = int(n), int(limit)
    with tempfile.TemporaryDirectory() as directory:
        files = kubeconfig_files(config, directory)
        context = ssl.create_default_context(
            cafile=files["certificate-authority-data"])
        context.load_cert_chain(files["client-certificate-data"],
                                files["client-key-data"])

        def create(i):
            body = json.dumps({
                "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                "metadata": {"name": f"race-{i}", "namespace": namespace},
                "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                    "deviceClassName": "gpu.example.com"}}]}}}).encode()
            request = urllib.request.Request(
                f"{server}/apis/resource.k8s.io/v1/namespaces/{namespace}/resourceclaims",
                data=body, method="POST",
                headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, context=context,
                                            timeout=30) as response:
                    return response.status, ""
            except urllib.error.HTTPError as error:
                return error.code, error.read().decode()

        with concurrent.futures.ThreadPoolExecutor(n) as pool:
            results = list(pool.map(create, range(n)))
        admitted = sum(1 for code, _ in results if code == 201)
        refused = [body for code, body in results if code == 403]
        others = [(code, body) for code, body in results if code not in (201, 403)]
        listing = urllib.request.urlopen(
            f"{server}/apis/resource.k8s.io/v1/namespaces/{namespace}/resourceclaims",
            context=context, timeout=30)
        stored = len(json.load(listing)["items"])
        print(f"admitted {admitted}, refused {len(refused)}, other {others[:3]}, stored {stored}")
        ok = (admitted == limit and stored == limit and not others and
              all("exceeded quota" in body for body in refused))
        sys.exit(0 if ok else 1)


main()
