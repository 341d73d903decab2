// The etcd backend: objects live in an etcd cluster, so that several API
// servers can share them and survive the loss of a machine.
//
// Layout and revisions follow kube-apiserver: key K of the Store is etcd key
// PREFIX+K (PREFIX is `--etcd-prefix`, "/registry" by default), values are
// the encoded objects, and the Store revision is the etcd revision (so a
// resourceVersion means the same on every server). Writes are etcd
// transactions that compare the key's mod revision; deletes carry their
// precondition the same way.
//
// Reads are served from a replica of PREFIX kept in memory by one etcd watch
// (kube-apiserver's watch cache): gets, lists, lists at an earlier revision
// and watches never wait for etcd. A server waits for its own write to reach
// the replica before acknowledging it, so a client sees its writes on the
// server it wrote to; a write made through another server appears within
// the watch latency. When the replica falls behind etcd's compaction it
// loads everything again and every open watch gets 410 Gone.
//
// Failover: the client talks to one member and moves to the next when that
// member fails or stops answering; the watch checks its member with a
// progress request every second.
//
// Compaction, as kube-apiserver does it: every interval, the servers race to
// advance etcd key "compact_rev_key"; the winner compacts to the revision
// recorded one interval earlier, so watches have one interval of history.
#ifndef DRALLOC_STORE_ETCD_STORE_H_
#define DRALLOC_STORE_ETCD_STORE_H_

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "store/memory_store.h"

namespace dralloc::store {

// "HOST:PORT" for each endpoint of "http://H:P[,http://H:P…]" (the part of
// `--storage etcd:…` after "etcd:"); errors name the bad endpoint.
StatusOr<std::vector<std::string>> ParseEtcdEndpoints(std::string_view list);

struct EtcdOptions {
  std::vector<std::string> endpoints;  // "HOST:PORT", at least one
  // The deadline of one etcd call, over all the members it tries.
  std::chrono::milliseconds request_timeout{10000};
  std::string prefix = "/registry";
  // 0: never compact (etcd's --auto-compaction-retention may).
  std::chrono::seconds compaction_interval{300};
  // How long to wait for etcd when the store opens.
  std::chrono::seconds start_timeout{30};
  StoreOptions window;
};

// Connects, loads every object under the prefix and starts the watch.
// kUnavailable (naming the endpoints) when etcd cannot be reached within
// `start_timeout`; kInvalidArgument for a bad prefix.
StatusOr<std::unique_ptr<Store>> OpenEtcdStore(EtcdOptions options);

}  // namespace dralloc::store

#endif  // DRALLOC_STORE_ETCD_STORE_H_
