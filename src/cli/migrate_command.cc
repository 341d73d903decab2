// dralloc migrate --from SPEC --to SPEC: copies every object from one store
// to another (SQLite to etcd when a cluster outgrows one machine, etcd to
// SQLite to go back), then reads both and checks that every object arrived
// with its content intact.
//
// Objects keep their uid, creation time, managed fields and everything
// else; only resourceVersion changes, because it is the destination's
// revision (clients holding old resourceVersions list again). The API
// servers on the source must be stopped first (SQLite allows one user of a
// directory anyway); the destination must be empty.
//
// Exit 0: copied and verified; 1: a store could not be opened, written or
// verified; 2: bad flags.
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/server_flags.h"
#include "store/store_factory.h"

namespace dralloc::cli {
namespace {

struct MigrateOptions {
  std::string from;
  std::string to;
  std::string etcd_prefix = "/registry";
  std::string log_level = "warn";
};

// `value` with its resourceVersion (`revision`) replaced by the store's
// revision marker, so that the destination stamps its own revision; other
// values (no resourceVersion) are copied as they are.
std::string WithRevisionMarker(const std::string& value, int64_t revision) {
  const std::string stamped =
      fmt::format("\"resourceVersion\":\"{}\"", revision);
  const size_t at = value.find(stamped);
  if (at == std::string::npos) return value;
  std::string out = value;
  out.replace(at, stamped.size(),
              fmt::format("\"resourceVersion\":\"{}\"",
                          std::string(store::kRevisionMarker)));
  return out;
}

StatusOr<std::unique_ptr<store::Store>> Open(const std::string& spec,
                                             const MigrateOptions& options) {
  if (spec.starts_with("memory")) {
    return InvalidArgumentError(fmt::format(
        "\"{}\": a memory: store holds nothing to migrate to or from", spec));
  }
  store::OpenOptions open;
  open.etcd_prefix = options.etcd_prefix;
  open.etcd_compaction_interval = std::chrono::seconds(0);
  open.etcd_start_timeout = std::chrono::seconds(10);
  return store::OpenStore(spec, open);
}

// Every key of `from` and `to` holds the same object but for its
// resourceVersion; returns the first difference.
Status Verify(const store::Store& from, const store::Store& to) {
  const store::ListResult source = from.List("/", "", 0);
  const store::ListResult copied = to.List("/", "", 0);
  if (source.items.size() != copied.items.size()) {
    return Status(StatusCode::kDataLoss,
                  fmt::format("the source holds {} objects, the destination "
                              "{}",
                              source.items.size(), copied.items.size()));
  }
  for (size_t i = 0; i < source.items.size(); ++i) {
    const store::KeyValue& a = source.items[i];
    const store::KeyValue& b = copied.items[i];
    if (a.key != b.key || WithRevisionMarker(*a.value, a.mod_revision) !=
                              WithRevisionMarker(*b.value, b.mod_revision)) {
      return Status(StatusCode::kDataLoss,
                    fmt::format("{} differs after the copy", a.key));
    }
  }
  return OkStatus();
}

int RunMigrate(const MigrateOptions& options) {
  if (!ApplyLogLevel(options.log_level)) return kExitBadInput;
  auto from = Open(options.from, options);
  if (!from.ok()) {
    fmt::print(stderr, "--from {}: {}\n", options.from,
               from.status().message());
    return from.status().code() == StatusCode::kInvalidArgument ? kExitBadInput
                                                                : kExitInvalid;
  }
  auto to = Open(options.to, options);
  if (!to.ok()) {
    fmt::print(stderr, "--to {}: {}\n", options.to, to.status().message());
    return to.status().code() == StatusCode::kInvalidArgument ? kExitBadInput
                                                              : kExitInvalid;
  }
  if (const size_t present = (*to)->Count("/"); present > 0) {
    fmt::print(stderr,
               "--to {}: the destination already holds {} objects; migrate "
               "into an empty store\n",
               options.to, present);
    return kExitInvalid;
  }
  const store::ListResult all = (*from)->List("/", "", 0);
  for (const store::KeyValue& kv : all.items) {
    const std::string value = WithRevisionMarker(*kv.value, kv.mod_revision);
    auto written = (*to)->Put(
        kv.key, store::Precondition::MustNotExist(), [&](int64_t revision) {
          return revision == store::kRevisionAtCommit
                     ? value
                     : store::StampRevision(value, revision);
        });
    if (!written.ok()) {
      fmt::print(stderr, "--to {}: writing {}: {}\n", options.to, kv.key,
                 written.status().message());
      return kExitInvalid;
    }
  }
  if (Status verified = Verify(**from, **to); !verified.ok()) {
    fmt::print(stderr, "verification failed: {}\n", verified.message());
    return kExitInvalid;
  }
  std::cout << fmt::format(
      "migrated {} objects from {} (revision {}) to {} (revision {}); every "
      "object verified\n",
      all.items.size(), options.from, all.revision, options.to,
      (*to)->Revision());
  return kExitOk;
}

}  // namespace

void RegisterMigrateCommand(CLI::App& app, int& exit_code) {
  auto [command, options] = AddCommand<MigrateOptions>(
      app, "migrate",
      "Copy every object from one store to another (e.g. sqlite:DIR to "
      "etcd:http://HOST:PORT, or back) and verify the copy. Stop the API "
      "servers on the source first; the destination must be empty.",
      exit_code, RunMigrate);
  command.add_option("--from", options.from, "the source store (--storage)")
      ->required();
  command.add_option("--to", options.to, "the destination store (--storage)")
      ->required();
  command
      .add_option("--etcd-prefix", options.etcd_prefix,
                  "the etcd key prefix on either side")
      ->capture_default_str();
  command
      .add_option("--log-level", options.log_level,
                  "debug, info, warn or error")
      ->capture_default_str();
}

}  // namespace dralloc::cli
