// TargetFlags and ResolveLoadTarget: the server and credentials a load run
// uses, from --server, --ca, --cert, --key, --token and --kubeconfig.
#ifndef DRALLOC_BENCH_LOAD_TARGET_FLAGS_H_
#define DRALLOC_BENCH_LOAD_TARGET_FLAGS_H_

#include <string>

#include "common/status.h"
#include "load/load_target.h"

namespace dralloc::load {

// File names and values as given on the command line; empty = not given.
struct TargetFlags {
  // --server URL; empty takes the kubeconfig's cluster server.
  std::string server;
  // --kubeconfig FILE: server, certificate-authority(-data),
  // client-certificate(-data), client-key(-data) and token of its current
  // context.
  std::string kubeconfig;
  // --ca, --cert, --key: PEM files; each overrides the kubeconfig's value,
  // as kubectl's flags do.
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  // --token: sent as "Authorization: Bearer TOKEN"; overrides the
  // kubeconfig's.
  std::string token;
};

// The target with its TLS context (https) and Authorization header.
// kInvalidArgument when the URL is not a loopback http(s) URL, when --ca,
// --cert or --key are given for an http:// server, when an https:// server
// has no CA, or when a credential does not load; kNotFound when a named file
// or the kubeconfig's current context does not exist. Messages name the flag.
StatusOr<LoadTarget> ResolveLoadTarget(const TargetFlags& flags);

}  // namespace dralloc::load

#endif  // DRALLOC_BENCH_LOAD_TARGET_FLAGS_H_
