#!/usr/bin/env bash
# Installs everything dralloc needs to build and test on Debian 12, by package name.
# Idempotent: skips apt entirely when every package is already present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache clang clang-format libclang-rt-14-dev
  pkg-config git python3 python3-yaml
  libyaml-dev libsimdjson-dev nlohmann-json3-dev libcli11-dev libfmt-dev libre2-dev
  libboost-container-dev libboost-dev libabsl-dev libsqlite3-dev libssl-dev openssl libjemalloc-dev libxxhash-dev
  libprotobuf-dev protobuf-compiler libgrpc++-dev protobuf-compiler-grpc tzdata
  libgtest-dev libgmock-dev libbenchmark-dev
  etcd-server etcd-client golang-etcd-server-dev
)

# Node.js and npm fetch the pinned CEL conformance data and run the JS
# performance peer. The machine image has Node 20; fall back to Debian's.
if ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
