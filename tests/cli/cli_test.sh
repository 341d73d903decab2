#!/usr/bin/env bash
# Command-line contract tests for `dralloc validate`, `convert`, `cel`,
# `allocate` and `schedule`.
# Usage: cli_test.sh DRALLOC_BINARY   (run from the source root)
# Prints one line per check and "N passed, N failed" at the end.
set -u
dralloc=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

check() {  # check NAME EXPECTED_EXIT CMD...
  local name=$1 want=$2
  shift 2
  timeout 60 "$@" >"$work/out" 2>"$work/err"
  local got=$?
  if [ "$got" -eq "$want" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $name: exit $got, want $want"
    head -c 2000 "$work/out" "$work/err"
  fi
}

expect_output() {  # expect_output NAME FILE PATTERN
  if grep -qE -- "$3" "$2"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $1: '$3' not found in $2:"
    head -c 2000 "$2"
  fi
}

# Examples are valid.
check examples-valid 0 "$dralloc" validate -f examples
expect_output examples-list "$work/out" '^ResourceSlice node-a-gpus: valid$|^ResourceSlice [a-z0-9.-]+: valid$'

# Each broken input ends in exit 2 with a message on stdout or stderr.
for f in tests/broken/*; do
  check "broken-$(basename "$f")" 2 "$dralloc" validate -f "$f"
  if [ ! -s "$work/out" ] && [ ! -s "$work/err" ]; then
    failed=$((failed + 1))
    echo "FAIL broken-$(basename "$f"): no message"
  fi
done

# Generated broken inputs: 100k-deep nesting (JSON and YAML), a 50 MB string.
python3 - "$work" <<'PY'
import sys
d = sys.argv[1]
open(f"{d}/deep.json", "w").write("[" * 100000 + "]" * 100000)
open(f"{d}/deep-object.json", "w").write('{"a":' * 100000 + "1" + "}" * 100000)
open(f"{d}/deep-flow.yaml", "w").write("a: " + "[" * 100000 + "]" * 100000 + "\n")
open(f"{d}/deep-block.yaml", "w").write("".join(" " * i + "a:\n" for i in range(0, 2000)))
with open(f"{d}/huge-string.yaml", "w") as f:
    f.write("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: \"")
    f.write("x" * (50 * 1024 * 1024))
    f.write("\"\n")
with open(f"{d}/huge-string.json", "w") as f:
    f.write('{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"')
    f.write("x" * (50 * 1024 * 1024))
    f.write('"}}')
open(f"{d}/empty.yaml", "w").write("")
PY
for f in deep.json deep-object.json deep-flow.yaml deep-block.yaml huge-string.yaml huge-string.json; do
  check "generated-$f" 2 "$dralloc" validate -f "$work/$f"
done
expect_output huge-string-message "$work/err" 'limit'

# Missing file: exit 2.
check missing-file 2 "$dralloc" validate -f "$work/does-not-exist.yaml"
# An empty file has no objects: nothing invalid.
check empty-file 0 "$dralloc" validate -f "$work/empty.yaml"

# An invalid object: exit 1 with a Kubernetes-style field error.
cat >"$work/invalid.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: zero-count
  namespace: default
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        count: -1
YAML
check invalid-claim 1 "$dralloc" validate -f "$work/invalid.yaml"
expect_output invalid-claim-message "$work/out" 'spec\.devices\.requests\[0\]\.exactly\.count: Invalid value: -1'
expect_output invalid-claim-name "$work/out" '^ResourceClaim default/zero-count: invalid'

# Unknown fields are warnings with --no-strict.
check no-strict 0 "$dralloc" validate --no-strict -f tests/broken/unknown-field.yaml
expect_output no-strict-warning "$work/out" 'warning: spec\.selector'

# convert: examples to every version and back are stable.
check convert-v1 0 "$dralloc" convert --to resource.k8s.io/v1 -f examples/cluster/device-classes.yaml
cp "$work/out" "$work/classes.v1.yaml"
check convert-v1beta1 0 "$dralloc" convert --to resource.k8s.io/v1beta1 -f "$work/classes.v1.yaml"
expect_output convert-v1beta1-version "$work/out" '^apiVersion: resource.k8s.io/v1beta1$'
cp "$work/out" "$work/classes.v1beta1.yaml"
check convert-back 0 "$dralloc" convert --to resource.k8s.io/v1 -f "$work/classes.v1beta1.yaml"
if cmp -s "$work/out" "$work/classes.v1.yaml"; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL convert round trip differs"; diff "$work/out" "$work/classes.v1.yaml" | head -20; fi
check convert-json 0 "$dralloc" convert --to resource.k8s.io/v1beta2 -o json -f examples/cluster/device-classes.yaml
expect_output convert-json-version "$work/out" '"apiVersion": "resource.k8s.io/v1beta2"'
check convert-unserved 1 "$dralloc" convert --to resource.k8s.io/v1beta1 -f examples/cluster/nodes.yaml
check convert-bad-input 2 "$dralloc" convert --to resource.k8s.io/v1 -f tests/broken/truncated.json
# resource.k8s.io/v1alpha2 (classic DRA): a namedResources slice converts to
# v1; classic claims have no structured form, and say why.
check convert-v1alpha2-slice 0 "$dralloc" convert --to resource.k8s.io/v1 -f examples/classic/named-resources-slice.yaml
expect_output convert-v1alpha2-slice-capacity "$work/out" '^ +memory:$'
expect_output convert-v1alpha2-slice-pool "$work/out" '^ +name: node-a$'
check convert-v1alpha2-claim 1 "$dralloc" convert --to resource.k8s.io/v1 -f examples/classic/claims.yaml
expect_output convert-v1alpha2-claim-why "$work/err" 'ResourceClaim default/shared-gpu: a resource.k8s.io/v1alpha2 \(classic DRA\) ResourceClaim has no resource.k8s.io/v1 form: spec.resourceClassName'
# An invalid object is refused with its field errors, not converted (the
# v1 form would silently keep one of the duplicate attributes).
check convert-invalid 1 "$dralloc" convert --to resource.k8s.io/v1 -f tests/cli/classic/duplicate-attribute-slice.yaml
expect_output convert-invalid-why "$work/err" 'ResourceSlice s1: invalid'
expect_output convert-invalid-field "$work/err" 'namedResources.instances\[0\].attributes\[1\].name: Duplicate value: "a"'
check convert-v1alpha2-identity 0 "$dralloc" convert --to resource.k8s.io/v1alpha2 -f tests/golden/v1alpha2/classic.yaml
# dralloc schedule with a simulated classic driver: two pods fit (one node
# each), the third waits for a driver with room.
check schedule-classic 1 "$dralloc" schedule --classic-gpus-per-node 2 \
  -f examples/classic/resource-class.yaml -f examples/classic/claims.yaml -f tests/cli/classic/cluster.yaml
expect_output schedule-classic-gpus "$work/out" 'gpu.classic.example.com/node-[ab]/gpu-1'
expect_output schedule-classic-waits "$work/out" 'resourceclaim cannot be allocated for the node \(unsuitable\)'
# 1.30's structured parameters: the scheduler allocates from namedResources
# instances; the second pod finds the instance taken.
check schedule-classic-structured 1 "$dralloc" schedule \
  -f tests/clients/classic_structured -f tests/cli/classic/structured-pods.yaml
expect_output schedule-classic-structured-instance "$work/out" 'default/p1 +node-a +p1-gpu-[a-z0-9]+ +gpu.named.example.com/node-a/gpu-1'
expect_output schedule-classic-structured-waits "$work/out" 'default/p2: 0/2 nodes are available: 2 resourceclaim cannot be allocated for the node \(unsuitable\)'
# ... and converted to v1 (class, template, slice), the same manifests get
# the same answer from the structured allocator.
check convert-v1alpha2-structured 0 "$dralloc" convert --to resource.k8s.io/v1 \
  -f tests/clients/classic_structured/big-gpu.yaml -f tests/clients/classic_structured/cluster.yaml
expect_output convert-v1alpha2-structured-selector "$work/out" 'expression: device.capacity\["gpu.named.example.com"\].memory.isGreaterThan\(quantity\("16Gi"\)\)'
expect_output convert-v1alpha2-structured-filter "$work/out" 'expression: device.attributes\["gpu.named.example.com"\].healthy'
cp "$work/out" "$work/converted.yaml"
check schedule-converted-structured 1 "$dralloc" schedule -f "$work/converted.yaml" \
  -f tests/clients/classic_structured/nodes.yaml -f tests/cli/classic/structured-pods.yaml
expect_output schedule-converted-structured-same "$work/out" 'default/p1 +node-a +p1-gpu-[a-z0-9]+ +gpu.named.example.com/node-a/gpu-1'
check schedule-classic-no-driver 1 "$dralloc" schedule \
  -f examples/classic/resource-class.yaml -f examples/classic/claims.yaml -f tests/cli/classic/cluster.yaml
check validate-v1alpha2-invalid 1 "$dralloc" validate -f tests/golden/v1alpha2/validation/ResourceClaim

# --help works everywhere.
check help 0 "$dralloc" --help
check help-validate 0 "$dralloc" validate --help
check help-convert 0 "$dralloc" convert --help
check no-args 2 "$dralloc" validate

# dralloc cel eval / cost: JSON results; exit 2 for compile errors, 3 for
# runtime errors (including the cost limit).
check cel-eval 0 "$dralloc" cel eval '[1, 2, 3].map(x, x * 2)'
expect_output cel-eval-json "$work/out" '^\[2,4,6\]$'
check cel-eval-device 0 "$dralloc" cel eval --device examples/cluster/gpu-slices.yaml \
  'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0'
expect_output cel-eval-device-true "$work/out" '^true$'
check cel-eval-device-name 0 "$dralloc" cel eval --device examples/cluster/gpu-slices.yaml \
  --device-name gpu-1 'device.driver'
expect_output cel-eval-driver "$work/out" '^"gpu.example.com"$'
check cel-eval-no-such-device 2 "$dralloc" cel eval --device examples/cluster/gpu-slices.yaml \
  --device-name no-such-gpu 'true'
check cel-compile-error 2 "$dralloc" cel eval '1 +'
expect_output cel-compile-error-position "$work/err" 'ERROR: <input>:1:4: Syntax error'
check cel-undeclared 2 "$dralloc" cel eval 'foo == 1'
expect_output cel-undeclared-message "$work/err" "undeclared reference to 'foo'"
check cel-runtime-error 3 "$dralloc" cel eval '1 / 0'
expect_output cel-runtime-error-message "$work/err" 'division by zero'
check cel-missing-key 3 "$dralloc" cel eval --device examples/cluster/gpu-slices.yaml \
  'device.attributes["gpu.example.com"].noSuchAttr'
expect_output cel-missing-key-message "$work/err" 'no such key: noSuchAttr'
check cel-cost-limit 3 "$dralloc" cel eval \
  'lists.range(1000).map(a, lists.range(1000).map(b, a * b)).size() > 0'
expect_output cel-cost-limit-message "$work/err" 'actual cost limit exceeded'
check cel-cost 0 "$dralloc" cel cost 'device.driver == "dra.example.com"'
expect_output cel-cost-value "$work/out" '^4$'
check cel-help 0 "$dralloc" cel eval --help

# dralloc allocate: 0 allocated (a v1 List), 1 unsatisfiable (why on stderr),
# 2 invalid input or fatal error.
check allocate-demo 0 "$dralloc" allocate --node node-a -f examples/cluster -f examples/claims
expect_output allocate-list "$work/out" '^kind: List$'
expect_output allocate-gpu-nic "$work/out" 'device: nic-1$'
check allocate-json 0 "$dralloc" allocate --node node-a -o json -f examples/cluster -f examples/claims
expect_output allocate-json-list "$work/out" '"kind": "List"'
check allocate-summary 0 "$dralloc" allocate --node node-a -o summary -f examples/cluster -f examples/claims
expect_output allocate-summary-line "$work/out" '^ml/infer-h100-or-a100 +gpu/a100 +gpu.example.com/node-a/gpu-7$'
check allocate-explain 0 "$dralloc" allocate --node node-a --explain -f examples/cluster -f examples/claims
expect_output allocate-explain-stderr "$work/err" 'claim ml/train-numa-pair request "gpus": needs 2 of class'
cat >"$work/too-many.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: eight-h100, namespace: ml}
spec:
  devices:
    requests:
    - name: gpus
      exactly: {deviceClassName: gpu-h100, count: 9}
YAML
check allocate-unsatisfiable 1 "$dralloc" allocate --node node-b -f examples/cluster -f "$work/too-many.yaml"
expect_output allocate-unsatisfiable-why "$work/err" 'request "gpus": needs 9 of class "gpu-h100" on node-b: .*; 8 usable'
check allocate-unknown-node 1 "$dralloc" allocate --node node-z -f examples/cluster -f "$work/too-many.yaml"
cat >"$work/bad-class.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: no-class, namespace: ml}
spec:
  devices:
    requests:
    - name: gpus
      exactly: {deviceClassName: no-such-class}
YAML
check allocate-unknown-class 2 "$dralloc" allocate --node node-a -f examples/cluster -f "$work/bad-class.yaml"
expect_output allocate-unknown-class-message "$work/err" 'could not retrieve device class no-such-class'
check allocate-invalid-object 2 "$dralloc" allocate --node node-a -f tests/golden/validation/resource_claim
check allocate-missing-file 2 "$dralloc" allocate --node node-a -f "$work/nope.yaml"
check allocate-help 0 "$dralloc" allocate --help

# As kubectl sends them: a namespaced object without a namespace goes to
# "default", so validate accepts it as a cluster would.
cat >"$work/no-namespace.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: no-namespace}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
YAML
check validate-no-namespace 0 "$dralloc" validate -f "$work/no-namespace.yaml"
expect_output validate-no-namespace-valid "$work/out" '^ResourceClaim no-namespace: valid$'

# schedule refuses admin access in a namespace without the admin-access
# label, with the API server's message.
cat >"$work/admin-access.yaml" <<'YAML'
apiVersion: v1
kind: Node
metadata: {name: node-a}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: admin}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com, adminAccess: true}
YAML
check schedule-admin-access-unlabeled 2 "$dralloc" schedule -f "$work/admin-access.yaml"
expect_output schedule-admin-access-message "$work/err" '^error: ResourceClaim default/admin: ResourceClaim\.resource\.k8s\.io "admin" is invalid: spec\.devices\.requests\[0\]\.exactly\.adminAccess: Forbidden: admin access to devices requires the `resource\.kubernetes\.io/admin-access: true` label on the containing namespace$'
cat >>"$work/admin-access.yaml" <<'YAML'
---
apiVersion: v1
kind: Namespace
metadata:
  name: default
  labels: {resource.kubernetes.io/admin-access: "true"}
YAML
check schedule-admin-access-labeled 0 "$dralloc" schedule -f "$work/admin-access.yaml"

# local-cluster: bad flags and a component that cannot start end cleanly.
check local-cluster-bad-runtime 2 "$dralloc" local-cluster --runtime bogus --dir "$work/lc"
expect_output local-cluster-bad-runtime-message "$work/err" 'runtime: Unsupported value: "bogus"'
check local-cluster-no-dir 2 "$dralloc" local-cluster
check local-cluster-bad-listen 1 "$dralloc" local-cluster --listen 127.0.0.1:notaport --dir "$work/lc"
expect_output local-cluster-bad-listen-message "$work/err" 'control plane exited with code [0-9]+ before it was ready \(log: .*serve.log\)'

# simulate: the rendering shared with the serve endpoints (docs/simulation.md).
check simulate-scale-up 0 "$dralloc" simulate scale-up -f tests/simulator/serve_cluster.yaml \
  --node-groups tests/simulator/serve_node_groups.yaml
expect_output simulate-scale-up-table "$work/out" '^default/train-1 +gpu-1 +gpu$'
check simulate-scale-up-json 0 "$dralloc" simulate scale-up -f tests/simulator/serve_cluster.yaml \
  --node-groups tests/simulator/serve_node_groups.yaml -o json
expect_output simulate-scale-up-json-count "$work/out" '^      "count": 1$'
check simulate-scale-up-bad-expander 2 "$dralloc" simulate scale-up -f tests/simulator/serve_cluster.yaml \
  --node-groups tests/simulator/serve_node_groups.yaml --expander cheapest
expect_output simulate-scale-up-bad-expander-message "$work/err" 'expander: Unsupported value: "cheapest"'
check simulate-scale-down 0 "$dralloc" simulate scale-down -f tests/simulator/serve_cluster.yaml -o json
expect_output simulate-scale-down-json "$work/out" '"removable": \['
# The table gives each node group's reason on its own line.
check simulate-scale-up-unschedulable 1 "$dralloc" simulate scale-up \
  -f tests/golden/simulate/up-device-no-template-has/cluster.yaml \
  --node-groups tests/golden/simulate/up-device-no-template-has/groups.yaml
expect_output simulate-scale-up-unschedulable-group "$work/out" \
  '^  node group small: 0/1 nodes are available: .*rejected by selector'

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
