#include "api/resource_registry.h"

#include <algorithm>
#include <array>

#include "api/kind_traits.h"

namespace dralloc::api {
namespace {

// "resource.k8s.io/v1" -> "v1".
std::string_view VersionOf(std::string_view api_version) {
  const size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? api_version
                                         : api_version.substr(slash + 1);
}

template <size_t N>
std::vector<std::string_view> NonEmpty(
    const std::array<std::string_view, N>& values) {
  std::vector<std::string_view> out;
  for (std::string_view value : values) {
    if (!value.empty()) out.push_back(value);
  }
  return out;
}

ResourceInfo InfoOf(const KindTraits& traits) {
  ResourceInfo info{traits.group,
                    traits.kind,
                    traits.plural,
                    traits.singular,
                    traits.namespaced,
                    traits.has_status,
                    NonEmpty(traits.short_names)};
  for (std::string_view api_version : NonEmpty(traits.api_versions)) {
    info.versions.push_back(VersionOf(api_version));
  }
  info.field_labels = NonEmpty(traits.field_labels);
  info.store_prefix =
      traits.store_prefix.empty() ? traits.plural : traits.store_prefix;
  info.listing = traits.listing;
  return info;
}

// Every kind's resource, ordered by KindTraits::listing.
const std::vector<ResourceInfo>& Table() {
  static const std::vector<ResourceInfo> table = [] {
    std::vector<ResourceInfo> out(kKindCount);
    ForEachKind([&]<typename T>(const KindTraits& traits) {
      out.at(static_cast<size_t>(traits.listing)) = InfoOf(traits);
    });
    for (ResourceInfo& info : out) {
      for (const ResourceInfo& other : out) {
        if (&other != &info && other.group == info.group &&
            other.plural == info.plural) {
          info.sibling = &other;
        }
      }
    }
    return out;
  }();
  return table;
}

}  // namespace

std::string ResourceInfo::QualifiedResource() const {
  std::string out(plural);
  if (!group.empty()) {
    out += '.';
    out += group;
  }
  return out;
}

std::string ResourceInfo::GroupVersion(std::string_view version) const {
  if (group.empty()) return std::string(version);
  std::string out(group);
  out += '/';
  out += version;
  return out;
}

bool ResourceInfo::IsClassic() const {
  return !versions.empty() && versions.front() == "v1alpha2";
}

std::span<const ResourceInfo> AllResources() { return Table(); }

const ResourceInfo* FindResource(std::string_view group,
                                 std::string_view version,
                                 std::string_view plural) {
  for (const ResourceInfo& info : Table()) {
    if (info.group != group || info.plural != plural) continue;
    if (std::find(info.versions.begin(), info.versions.end(), version) !=
        info.versions.end()) {
      return &info;
    }
  }
  return nullptr;
}

const ResourceInfo* FindResourceByKind(std::string_view kind) {
  for (const ResourceInfo& info : Table()) {
    if (info.kind == kind) return &info;
  }
  return nullptr;
}

const ResourceInfo* FindResourceByKind(std::string_view api_version,
                                       std::string_view kind) {
  const KindTraits* traits = FindKindTraits(api_version, kind);
  if (traits == nullptr) return nullptr;
  return &Table()[static_cast<size_t>(traits->listing)];
}

const ResourceInfo& ResourceInfoOf(const Object& object) {
  return Table()[static_cast<size_t>(TraitsOf(object).listing)];
}

std::vector<std::string_view> ServedGroups() {
  std::vector<std::string_view> groups;
  for (const ResourceInfo& info : Table()) {
    if (std::find(groups.begin(), groups.end(), info.group) == groups.end()) {
      groups.push_back(info.group);
    }
  }
  return groups;
}

std::vector<std::string_view> GroupVersions(std::string_view group) {
  // The union of the group's resources' versions, in listing order; the
  // first resource's preferred version comes first.
  std::vector<std::string_view> versions;
  for (const ResourceInfo& info : Table()) {
    if (info.group != group) continue;
    for (std::string_view version : info.versions) {
      if (std::find(versions.begin(), versions.end(), version) ==
          versions.end()) {
        versions.push_back(version);
      }
    }
  }
  return versions;
}

}  // namespace dralloc::api
