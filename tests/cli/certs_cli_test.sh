#!/usr/bin/env bash
# `dralloc certs init` and `dralloc certs kubeconfig` through the built
# binary: files and modes, certificates checked with openssl, kubeconfigs
# read by kubectl (offline), refusal to overwrite, exit 2 for bad flags.
# Usage: certs_cli_test.sh PATH/TO/dralloc
set -u
DRALLOC=${1:?usage: certs_cli_test.sh PATH/TO/dralloc}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect CODE PATTERN -- COMMAND...: exit code and a pattern of stdout+stderr.
expect() {
  local code=$1 pattern=$2
  shift 3
  local out
  out=$("$@" 2>&1)
  local got=$?
  [[ $got == "$code" ]] || fail "$* exited $got, want $code: $out"
  [[ -z $pattern ]] || grep -qE -- "$pattern" <<<"$out" ||
    fail "$*: output lacks /$pattern/: $out"
}

mode() { stat -c %a "$1"; }

# A client certificate PEM out of a kubeconfig.
client_cert() {
  sed -n 's/^ *client-certificate-data: //p' "$1" | base64 -d
}

PKI=$WORK/pki
expect 0 "wrote $PKI/node-n2.kubeconfig" -- "$DRALLOC" certs init "$PKI" \
  --server https://127.0.0.1:6443 --hosts example.com,10.0.0.5 --nodes n1,n2
listed=$("$DRALLOC" certs init "$PKI" --server https://x --nodes n1,n2 \
  --force | wc -l)
[[ $listed == 11 ]] || fail "certs init --force listed $listed files, want 11"
"$DRALLOC" certs init "$PKI" --server https://127.0.0.1:6443 \
  --hosts example.com,10.0.0.5 --nodes n1,n2 --force >/dev/null
for f in ca.key apiserver.key sa.key admin.kubeconfig scheduler.kubeconfig \
  controller-manager.kubeconfig node-n1.kubeconfig node-n2.kubeconfig; do
  [[ $(mode "$PKI/$f") == 600 ]] || fail "$f has mode $(mode "$PKI/$f")"
done
for f in ca.crt apiserver.crt sa.pub; do
  [[ $(mode "$PKI/$f") == 644 ]] || fail "$f has mode $(mode "$PKI/$f")"
done

expect 0 "OK" -- openssl verify -purpose sslserver -CAfile "$PKI/ca.crt" \
  "$PKI/apiserver.crt"
expect 0 "DNS:example.com.*DNS:localhost" -- openssl x509 -noout \
  -ext subjectAltName -in "$PKI/apiserver.crt"
expect 0 "IP Address:10.0.0.5, IP Address:127.0.0.1" -- openssl x509 \
  -noout -ext subjectAltName -in "$PKI/apiserver.crt"

client_cert "$PKI/admin.kubeconfig" >"$WORK/admin.crt"
expect 0 "OK" -- openssl verify -purpose sslclient -CAfile "$PKI/ca.crt" \
  "$WORK/admin.crt"
expect 0 "O ?= ?system:masters, CN ?= ?admin" -- openssl x509 -noout \
  -subject -in "$WORK/admin.crt"
client_cert "$PKI/node-n1.kubeconfig" >"$WORK/n1.crt"
expect 0 "O ?= ?system:nodes, CN ?= ?system:node:n1" -- openssl x509 -noout \
  -subject -in "$WORK/n1.crt"

if command -v kubectl >/dev/null; then
  expect 0 "^admin@dralloc$" -- kubectl --kubeconfig "$PKI/admin.kubeconfig" \
    config current-context
  expect 0 "https://127.0.0.1:6443" -- kubectl --kubeconfig \
    "$PKI/node-n1.kubeconfig" config view
  expect 0 "^system:node:n1$" -- kubectl --kubeconfig \
    "$PKI/node-n1.kubeconfig" config view -o 'jsonpath={.users[0].name}'
  expect 0 "BEGIN CERTIFICATE" -- bash -c "kubectl --kubeconfig \
    '$PKI/scheduler.kubeconfig' config view --raw \
    -o 'jsonpath={.users[0].user.client-certificate-data}' | base64 -d"
fi

# Existing files are kept.
expect 1 "$PKI/ca.crt already exists" -- "$DRALLOC" certs init "$PKI" \
  --server https://127.0.0.1:6443

# One more client kubeconfig, pointing at the server of admin.kubeconfig.
expect 0 "wrote $WORK/jane.kubeconfig" -- "$DRALLOC" certs kubeconfig "$PKI" \
  --user jane --groups dev,ops --out "$WORK/jane.kubeconfig"
[[ $(mode "$WORK/jane.kubeconfig") == 600 ]] || fail "jane.kubeconfig mode"
grep -q 'server: "https://127.0.0.1:6443"' "$WORK/jane.kubeconfig" ||
  fail "jane.kubeconfig does not point at the server"
client_cert "$WORK/jane.kubeconfig" >"$WORK/jane.crt"
expect 0 "O ?= ?dev, O ?= ?ops, CN ?= ?jane" -- openssl x509 -noout -subject \
  -in "$WORK/jane.crt"
expect 0 "OK" -- openssl verify -purpose sslclient -CAfile "$PKI/ca.crt" \
  "$WORK/jane.crt"
expect 1 "jane.kubeconfig already exists" -- "$DRALLOC" certs kubeconfig \
  "$PKI" --user jane --out "$WORK/jane.kubeconfig"
expect 1 "cannot read $WORK/nope/ca.crt" -- "$DRALLOC" certs kubeconfig \
  "$WORK/nope" --user jane --server https://x --out "$WORK/x.kubeconfig"

# Bad flags: exit 2 with the flag named.
NEW=$WORK/new
expect 2 "server" -- "$DRALLOC" certs init "$NEW"
expect 2 "--server: \"127.0.0.1:6443\"" -- "$DRALLOC" certs init "$NEW" \
  --server 127.0.0.1:6443
expect 2 "--hosts: \"bad_name\"" -- "$DRALLOC" certs init "$NEW" \
  --server https://x --hosts bad_name
expect 2 "--nodes: \"Node_1\"" -- "$DRALLOC" certs init "$NEW" \
  --server https://x --nodes Node_1
expect 2 "--cert-validity" -- "$DRALLOC" certs init "$NEW" \
  --server https://x --cert-validity 30s
expect 2 "--ca-validity" -- "$DRALLOC" certs init "$NEW" \
  --server https://x --ca-validity soon
expect 2 "user" -- "$DRALLOC" certs kubeconfig "$PKI" --out "$WORK/y"
[[ ! -e $NEW/ca.crt ]] || fail "a refused certs init wrote files"

if ((failures > 0)); then
  echo "certs_cli_test: $failures failure(s)"
  exit 1
fi
echo "certs_cli_test: all passed"
