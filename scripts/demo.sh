#!/usr/bin/env bash
# The main job: install dependencies, build dralloc, validate the bundled
# examples, then schedule the example pods (claim controller + scheduler,
# offline) and print where each pod landed with its devices, ask the
# autoscaler simulation what to add and what could go, and run a local
# cluster (serve + node agents + example drivers) that kubectl talks to.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache keys on paths relative to the checkout (see scripts/test.sh).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-12G}"
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target dralloc
echo "== dralloc validate -f examples"
build/src/cli/dralloc validate -f examples
echo
echo "== dralloc allocate --node node-a -o summary -f examples/cluster -f examples/claims"
build/src/cli/dralloc allocate --node node-a -o summary -f examples/cluster -f examples/claims
echo
echo "== dralloc schedule -f examples/cluster -f examples/workloads  (pods with claims → nodes and devices)"
build/src/cli/dralloc schedule -f examples/cluster -f examples/workloads
echo
echo "== dralloc schedule -f examples/scheduling  (shared claim, firstAvailable, templates)"
build/src/cli/dralloc schedule -f examples/scheduling
echo
echo "== dralloc schedule --classic-gpus-per-node 4 -f examples/classic -f tests/cli/classic/cluster.yaml  (classic DRA, resource.k8s.io/v1alpha2: a simulated control-plane driver allocates GPUs through PodSchedulingContexts)"
build/src/cli/dralloc schedule --classic-gpus-per-node 4 -f examples/classic \
  -f tests/cli/classic/cluster.yaml
echo
echo "== dralloc simulate scale-up  (how many nodes of which NodeGroup the pending pods need)"
build/src/cli/dralloc simulate scale-up -f tests/simulator/serve_cluster.yaml \
  --node-groups tests/simulator/serve_node_groups.yaml
echo
echo "== dralloc simulate scale-down  (which nodes could go, least-used devices first)"
build/src/cli/dralloc simulate scale-down -f tests/simulator/serve_cluster.yaml
echo
echo "== dralloc local-cluster --nodes 2 --gpus 2 --runtime process  (serve + 2 node agents + 2 example drivers, separate processes)"
if ! command -v kubectl >/dev/null 2>&1; then
  echo "(kubectl is not installed: skipping the live cluster part)"
  exit 0
fi
# --runtime process runs each container's command as a local process (no
# isolation: local development only) with the env of its CDI devices.
cluster=$(mktemp -d /tmp/dralloc-demo.XXXXXX)
build/src/cli/dralloc local-cluster --nodes 2 --gpus 2 --runtime process --dir "$cluster" \
  >"$cluster/out" 2>"$cluster/log" &
cluster_pid=$!
trap 'kill $cluster_pid 2>/dev/null; wait $cluster_pid 2>/dev/null; rm -rf "$cluster"' EXIT
for _ in $(seq 300); do
  grep -qx ready "$cluster/out" 2>/dev/null && break
  kill -0 "$cluster_pid" 2>/dev/null || { cat "$cluster/log"; exit 1; }
  sleep 0.1
done
export KUBECONFIG="$cluster/kubeconfig"
echo "\$ kubectl get nodes"
kubectl get nodes
echo "\$ kubectl apply -f examples/driver/   (gpu-test prints its GPU and exits)"
kubectl apply -f examples/driver/
for name in a b; do
  # Long-running GPU pods: they stay Running.
  sed -e "s/name: gpu-test/name: gpu-server-$name/" -e 's/restartPolicy: Never/restartPolicy: Always/' \
    -e 's/command: .*/command: ["sh", "-c", "env | grep GPU_DEVICE; exec sleep 3600"]/' \
    examples/driver/pod.yaml | kubectl apply -f -
done
kubectl wait --for=jsonpath='{.status.phase}'=Succeeded pod/gpu-test --timeout=60s >/dev/null
kubectl wait --for=condition=Ready pod/gpu-server-a pod/gpu-server-b --timeout=60s >/dev/null
echo "\$ kubectl get pods -o wide"
kubectl get pods -o wide
echo "\$ kubectl logs gpu-test   (the GPU the pod was given, from its claim's CDI spec)"
kubectl logs gpu-test
echo "\$ kubectl get resourceclaims"
kubectl get resourceclaims
for node in node-1 node-2; do
  echo "\$ dralloc podresources list --socket $node's PodResources socket"
  build/src/cli/dralloc podresources list \
    --socket "$cluster/nodes/$node/pod-resources/kubelet.sock"
done
echo "\$ CDI specs written by the drivers for the prepared claims"
ls "$cluster"/nodes/*/cdi/
