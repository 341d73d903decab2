// DraPlugin, extended resources backed by DRA (KEP-5004): Reserve names and
// assumes the special claim Filter planned, PreBind creates it and writes
// its allocation, Unreserve deletes it. Filter's part is in dra_plugin.cc.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "api/claim_helpers.h"
#include "api/well_known.h"
#include "scheduler/dra_plugin.h"

namespace dralloc::scheduler {
namespace {

using client::As;
using client::ObjectPtr;

constexpr int kWriteAttempts = 5;

// Five characters from generateName's alphabet (no vowels, no look-alikes)
// so that the name reads like one the API server generates. Reserve names
// the claim itself, because the snapshot assumes it under its real key. The
// suffix hashes the pod's uid with a count of the names this plugin made
// (FNV-1a), so an offline run names the same claims every time and a retry
// after a failed binding gets a new name.
std::string NameSuffix(std::string_view pod_uid, uint64_t sequence) {
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  uint64_t hash = 14695981039346656037ull;
  auto mix = [&hash](unsigned char byte) {
    hash ^= byte;
    hash *= 1099511628211ull;
  };
  for (char c : pod_uid) mix(static_cast<unsigned char>(c));
  for (int i = 0; i < 8; ++i)
    mix(static_cast<unsigned char>(sequence >> (8 * i)));
  std::string suffix(5, ' ');
  for (char& c : suffix) {
    c = kAlphabet[hash % kAlphabet.size()];
    hash /= kAlphabet.size();
  }
  return suffix;
}

}  // namespace

void DraPlugin::ReserveExtendedClaim(const DraCycleState& state,
                                     Candidate& chosen, const std::string& now,
                                     BindTask& task) {
  const api::Pod& pod = state.pod;
  api::ResourceClaim claim = BuildExtendedResourceClaim(pod, *chosen.extended);
  claim.metadata.name = claim.metadata.generate_name +
                        NameSuffix(pod.metadata.uid, extended_claims_named_++);
  claim.metadata.finalizers.emplace_back(api::kDeleteProtectionFinalizer);
  const std::string key =
      client::ObjectKey(claim.metadata.namespace_, claim.metadata.name);

  api::ResourceClaim assumed = claim;
  const size_t last = state.to_allocate.size();
  if (chosen.shared_results != nullptr) {
    assumed.status.allocation = (*chosen.shared_results)[last];
  } else {
    assumed.status.allocation = std::move(chosen.results[last]);
  }
  assumed.status.allocation->allocation_timestamp = now;
  assumed.status.reserved_for.push_back(api::PodConsumerRef(pod));
  auto assumed_object = std::make_shared<const api::Object>(std::move(assumed));
  snapshot_.AssumeClaim(key, assumed_object);

  ExtendedClaimWrite write;
  write.key = key;
  write.pod_status =
      ExtendedResourceClaimStatusFor(claim.metadata.name, *chosen.extended);
  write.create = std::make_shared<const api::Object>(std::move(claim));
  write.assumed = std::move(assumed_object);
  task.extended_claim = std::move(write);
}

Status DraPlugin::CreateExtendedClaim(const BindTask& task,
                                      WrittenClaims& written) const {
  const ExtendedClaimWrite& write = *task.extended_claim;
  const auto& assumed = std::get<api::ResourceClaim>(*write.assumed);
  auto created = client_.Create(*write.create);
  if (!created.ok()) {
    return created.status().WithPrefix(
        fmt::format("create claim for extended resources {}", write.key));
  }
  ObjectPtr current = *created;
  for (int attempt = 0; attempt < kWriteAttempts; ++attempt) {
    api::ResourceClaim next = std::get<api::ResourceClaim>(*current);
    next.status.allocation = assumed.status.allocation;
    next.status.reserved_for = assumed.status.reserved_for;
    auto updated = client_.UpdateStatus(api::Object(std::move(next)));
    if (updated.ok()) {
      written.emplace_back(write.key,
                           client::AssumeCache::RevisionOf(**updated));
      return OkStatus();
    }
    if (updated.status().code() != StatusCode::kAborted) {
      return updated.status();
    }
    const auto& meta = std::get<api::ResourceClaim>(*current).metadata;
    auto fresh = client_.Get(client::ResourceClaimsResource(), meta.namespace_,
                             meta.name);
    if (!fresh.ok()) return fresh.status();
    current = std::move(*fresh);
  }
  return Status(StatusCode::kAborted,
                fmt::format("claim {} kept changing", write.key));
}

void DraPlugin::DeleteExtendedClaim(const BindTask& task) const {
  const auto& claim =
      std::get<api::ResourceClaim>(*task.extended_claim->create);
  DeleteClaimAndFinalizer(claim.metadata.namespace_, claim.metadata.name);
}

void DraPlugin::DeleteStaleExtendedClaim(const ObjectPtr& claim) const {
  const auto* stale = As<api::ResourceClaim>(claim);
  if (stale == nullptr) return;
  DeleteClaimAndFinalizer(stale->metadata.namespace_, stale->metadata.name);
}

void DraPlugin::DeleteClaimAndFinalizer(const std::string& ns,
                                        const std::string& name) const {
  // The finalizer first, so that the delete removes the claim at once.
  for (int attempt = 0; attempt < kWriteAttempts; ++attempt) {
    auto current = client_.Get(client::ResourceClaimsResource(), ns, name);
    if (!current.ok()) return;  // never created, or gone
    api::ResourceClaim next = std::get<api::ResourceClaim>(**current);
    const size_t before = next.metadata.finalizers.size();
    std::erase(next.metadata.finalizers,
               std::string(api::kDeleteProtectionFinalizer));
    if (next.metadata.finalizers.size() == before) break;
    auto updated = client_.Update(api::Object(std::move(next)));
    if (updated.ok() || updated.status().code() != StatusCode::kAborted) break;
  }
  (void)client_.Delete(client::ResourceClaimsResource(), ns, name, "");
}

}  // namespace dralloc::scheduler
