#include "allocator/offline_allocation.h"

#include <fmt/format.h>

#include "api/codec.h"
#include "api/validation/validation.h"
#include "encoding/document_reader.h"

namespace dralloc::allocator {

StatusOr<std::vector<api::Object>> DecodeManifests(std::string_view text,
                                                   std::string_view source) {
  std::vector<api::Object> objects;
  std::string errors;
  Status read = encoding::VisitDocuments(
      text, source,
      [&](const encoding::Document& document, simdjson::dom::element root) {
        for (api::DecodeResult& r : api::DecodeElement(root, {})) {
          if (!r.errors.empty()) {
            errors += fmt::format("{}{}:{}: {}: {}", errors.empty() ? "" : "\n",
                                  source, document.line, r.DisplayName(),
                                  api::ToString(r.errors));
          } else {
            objects.push_back(std::move(*r.object));
          }
        }
      });
  RETURN_IF_ERROR(read);
  if (!errors.empty()) return InvalidArgumentError(errors);
  return objects;
}

StatusOr<OfflineAllocation> AllocateOffline(std::vector<api::Object> objects,
                                            std::string_view node_name,
                                            const AllocatorOptions& options) {
  std::string problems;
  for (const api::Object& object : objects) {
    api::ErrorList errors = api::Validate(object);
    if (errors.empty()) continue;
    problems += fmt::format("{}{}: {}", problems.empty() ? "" : "\n",
                            api::DisplayName(object), api::ToString(errors));
  }
  if (!problems.empty()) return InvalidArgumentError(problems);

  NodeInfo node{std::string(node_name), {}};
  std::vector<api::ResourceSlice> slices;
  std::vector<api::ResourceSlicePatch> patches;
  std::vector<api::DeviceTaintRule> rules;
  std::vector<api::DeviceClass> classes;
  AllocatedState state;
  OfflineAllocation out;
  for (api::Object& object : objects) {
    if (auto* n = std::get_if<api::Node>(&object)) {
      if (n->metadata.name == node_name) node = NodeInfo::FromNode(*n);
    } else if (auto* s = std::get_if<api::ResourceSlice>(&object)) {
      slices.push_back(std::move(*s));
    } else if (auto* p = std::get_if<api::ResourceSlicePatch>(&object)) {
      patches.push_back(std::move(*p));
    } else if (auto* r = std::get_if<api::DeviceTaintRule>(&object)) {
      rules.push_back(std::move(*r));
    } else if (auto* c = std::get_if<api::DeviceClass>(&object)) {
      classes.push_back(std::move(*c));
    } else if (auto* claim = std::get_if<api::ResourceClaim>(&object)) {
      if (claim->status.allocation) {
        state.AddAllocation(*claim->status.allocation);
      } else {
        out.claims.push_back(std::move(*claim));
      }
    }
  }
  DeviceInventory inventory;
  inventory.Update(std::move(slices), std::move(patches), std::move(rules),
                   std::move(classes));
  out.patch_problems = inventory.patch_problems();

  std::vector<const api::ResourceClaim*> claims;
  for (const auto& claim : out.claims) claims.push_back(&claim);
  Allocator allocator(inventory, state, options);
  ASSIGN_OR_RETURN(out.allocation, allocator.Allocate(node, claims));
  if (out.allocation.allocated) {
    for (size_t i = 0; i < out.claims.size(); ++i) {
      out.claims[i].status.allocation = out.allocation.results[i];
    }
  }
  return out;
}

}  // namespace dralloc::allocator
