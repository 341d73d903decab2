#include "allocator/slice_patcher.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <tuple>
#include <utility>

#include "api/cel_device.h"
#include "cel/common/eval_context.h"
#include "cel/dra/dra_environment.h"
#include "cel/lib/time_library.h"

namespace dralloc::allocator {

namespace {

// Sort key for "older": (seconds, nanos); missing or unparseable = newest.
std::pair<int64_t, int32_t> CreationTime(const api::ObjectMeta& meta) {
  constexpr std::pair<int64_t, int32_t> kNewest{
      std::numeric_limits<int64_t>::max(), 0};
  if (!meta.creation_timestamp) return kNewest;
  cel::Value t = cel::ParseTimestamp(*meta.creation_timestamp);
  if (t.kind() != cel::ValueKind::kTimestamp) return kNewest;
  return {t.timestamp_seconds(), t.timestamp_nanos()};
}

api::DeviceAttribute ToAttribute(const api::NullableDeviceAttribute& a) {
  api::DeviceAttribute out;
  out.int_value = a.int_value;
  out.bool_value = a.bool_value;
  out.string_value = a.string_value;
  out.version_value = a.version_value;
  out.ints = a.ints;
  out.bools = a.bools;
  out.strings = a.strings;
  out.versions = a.versions;
  return out;
}

// The key forms that address `name` on a device of `driver`: for a name in
// the driver's domain (or without a domain), the unprefixed id and the full
// name; otherwise just the name.
struct KeyForms {
  std::string_view unprefixed;  // empty if the name is in another domain
  std::string_view qualified;   // empty if the name has no domain
};
KeyForms FormsOf(std::string_view name, std::string_view driver) {
  size_t slash = name.find('/');
  if (slash == std::string_view::npos) return {name, {}};
  if (name.substr(0, slash) == driver) return {name.substr(slash + 1), name};
  return {{}, name};
}

// Sets `name` to `value`, under the key form(s) the device already uses, or
// the unprefixed form for a new entry of the driver's domain.
template <typename V>
void SetEntry(api::FlatMap<V>& map, std::string_view driver,
              std::string_view name, const V& value) {
  KeyForms forms = FormsOf(name, driver);
  bool found = false;
  for (std::string_view key : {forms.unprefixed, forms.qualified}) {
    if (key.empty()) continue;
    auto it = map.find(std::string(key));
    if (it == map.end()) continue;
    it->second = value;
    found = true;
  }
  if (found) return;
  std::string_view key =
      forms.unprefixed.empty() ? forms.qualified : forms.unprefixed;
  map.insert_or_assign(std::string(key), value);
}

template <typename V>
void RemoveEntry(api::FlatMap<V>& map, std::string_view driver,
                 std::string_view name) {
  KeyForms forms = FormsOf(name, driver);
  for (std::string_view key : {forms.unprefixed, forms.qualified}) {
    if (key.empty()) continue;
    auto it = map.find(std::string(key));
    if (it != map.end()) map.erase(it);
  }
}

void ApplyPatch(const api::DevicePatch& patch, std::string_view driver,
                api::Device& device) {
  for (const auto& [name, attribute] : patch.attributes) {
    if (attribute.null_value) {
      RemoveEntry(device.attributes, driver, name);
    } else {
      SetEntry(device.attributes, driver, name, ToAttribute(attribute));
    }
  }
  for (const auto& [name, capacity] : patch.capacity) {
    SetEntry(device.capacity, driver, name, capacity);
  }
}

}  // namespace

// One device of the slice being patched, with its CEL view built on first use
// from the original (unpatched) device.
class SlicePatcher::DeviceView {
 public:
  DeviceView(const std::string& driver, const std::string& pool,
             const api::Device& device)
      : driver_(driver), pool_(pool), device_(device) {}

  const std::string& driver() const { return driver_; }
  const std::string& pool() const { return pool_; }
  const std::string& name() const { return device_.name; }
  const cel::DraDevice& cel() {
    if (!cel_) cel_ = api::ToCelDevice(driver_, device_);
    return *cel_;
  }
  std::string Id() const {
    return fmt::format("{}/{}/{}", driver_, pool_, device_.name);
  }

 private:
  const std::string& driver_;
  const std::string& pool_;
  const api::Device& device_;
  std::unique_ptr<cel::DraDevice> cel_;
};

SlicePatcher::Filter SlicePatcher::CompileFilter(
    const std::optional<std::string>& class_name,
    const std::optional<std::string>& driver,
    const std::optional<std::string>& pool,
    const std::optional<std::string>& device,
    const std::vector<api::DeviceSelector>& selectors,
    const ClassLookup& classes) {
  Filter filter;
  filter.driver = driver;
  filter.pool = pool;
  filter.device = device;
  auto add = [&filter](std::string label, const api::DeviceSelector& s) {
    if (!s.cel) return;  // rejected by validation; no constraint
    Selector compiled;
    compiled.label = std::move(label);
    StatusOr<std::shared_ptr<const cel::Program>> program =
        cel::SelectorCache().GetOrCompile(s.cel->expression);
    if (program.ok()) {
      compiled.program = *std::move(program);
    } else {
      compiled.compile_error = program.status();
    }
    filter.selectors.push_back(std::move(compiled));
  };
  if (class_name) {
    const api::DeviceClass* device_class =
        classes ? classes(*class_name) : nullptr;
    if (device_class == nullptr) {
      filter.missing_class = *class_name;
    } else {
      const auto& class_selectors = device_class->spec.selectors;
      for (size_t i = 0; i < class_selectors.size(); ++i) {
        add(fmt::format("device class \"{}\" selector #{}", *class_name, i),
            class_selectors[i]);
      }
    }
  }
  for (size_t i = 0; i < selectors.size(); ++i) {
    add(fmt::format("selector #{}", i), selectors[i]);
  }
  return filter;
}

bool SlicePatcher::SliceMayMatch(const Filter& filter, std::string_view driver,
                                 std::string_view pool) {
  return (!filter.driver || *filter.driver == driver) &&
         (!filter.pool || *filter.pool == pool);
}

bool SlicePatcher::Matches(const Filter& filter, DeviceView& view,
                           std::string* problem) {
  if (filter.driver && *filter.driver != view.driver()) return false;
  if (filter.pool && *filter.pool != view.pool()) return false;
  if (filter.device && *filter.device != view.name()) return false;
  if (filter.missing_class) {
    *problem =
        fmt::format("device class \"{}\" not found", *filter.missing_class);
    return false;
  }
  for (const Selector& selector : filter.selectors) {
    if (!selector.program) {
      *problem = fmt::format("{}: CEL compile error: {}", selector.label,
                             selector.compile_error.message());
      return false;
    }
    cel::EvalContext ctx;
    StatusOr<bool> result =
        cel::MatchSelector(*selector.program, view.cel(), ctx);
    if (!result.ok()) {
      *problem = fmt::format("{}: CEL runtime error: {}", selector.label,
                             result.status().message());
      return false;
    }
    if (!*result) return false;
  }
  return true;
}

SlicePatcher::SlicePatcher(std::vector<api::ResourceSlicePatch> patches,
                           std::vector<api::DeviceTaintRule> rules,
                           ClassLookup classes) {
  // Ascending precedence: lower priority first; at equal priority newer
  // first; at equal time the larger name first (the smaller one wins).
  struct Ranked {
    int64_t priority;
    std::pair<int64_t, int32_t> created;
    size_t index;
  };
  std::vector<Ranked> order;
  order.reserve(patches.size());
  for (size_t i = 0; i < patches.size(); ++i) {
    order.push_back({patches[i].spec.devices.priority.value_or(0),
                     CreationTime(patches[i].metadata), i});
  }
  std::stable_sort(
      order.begin(), order.end(), [&patches](const Ranked& a, const Ranked& b) {
        if (a.priority != b.priority) {
          return a.priority < b.priority;
        }
        if (a.created != b.created) return a.created > b.created;
        return patches[a.index].metadata.name > patches[b.index].metadata.name;
      });
  patches_.reserve(patches.size());
  for (const Ranked& r : order) {
    api::ResourceSlicePatch& p = patches[r.index];
    Patch patch;
    patch.object = "ResourceSlicePatch " + p.metadata.name;
    const std::optional<api::DevicePatchFilter>& f = p.spec.devices.filter;
    if (f) {
      patch.filter = CompileFilter(f->device_class_name, f->driver, f->pool,
                                   f->device, f->selectors, classes);
    }
    patch.spec = std::move(p.spec.devices);
    patch.spec.filter.reset();  // compiled above
    patches_.push_back(std::move(patch));
  }

  std::stable_sort(
      rules.begin(), rules.end(),
      [](const api::DeviceTaintRule& a, const api::DeviceTaintRule& b) {
        return a.metadata.name < b.metadata.name;
      });
  rules_.reserve(rules.size());
  for (api::DeviceTaintRule& r : rules) {
    Rule rule;
    rule.object = "DeviceTaintRule " + r.metadata.name;
    const std::optional<api::DeviceTaintSelector>& s = r.spec.device_selector;
    if (s) {
      rule.filter = CompileFilter(s->device_class_name, s->driver, s->pool,
                                  s->device, s->selectors, classes);
    }
    rule.taint = std::move(r.spec.taint);
    rules_.push_back(std::move(rule));
  }
}

api::ResourceSlice SlicePatcher::Apply(
    const api::ResourceSlice& slice,
    std::vector<PatchProblem>& problems) const {
  const std::string& driver = slice.spec.driver;
  const std::string& pool = slice.spec.pool.name;
  // Patches and rules that may touch this slice, in application order.
  std::vector<const Patch*> patches;
  for (const Patch& p : patches_) {
    if (SliceMayMatch(p.filter, driver, pool)) patches.push_back(&p);
  }
  std::vector<const Rule*> rules;
  for (const Rule& r : rules_) {
    if (SliceMayMatch(r.filter, driver, pool)) rules.push_back(&r);
  }
  api::ResourceSlice out = slice;
  if (patches.empty() && rules.empty()) return out;

  std::string problem;
  auto matches = [&](const Filter& filter, const std::string& object,
                     DeviceView& view) {
    problem.clear();
    if (Matches(filter, view, &problem)) return true;
    if (!problem.empty()) {
      problems.push_back({object, view.Id(), std::move(problem)});
    }
    return false;
  };
  for (size_t i = 0; i < slice.spec.devices.size(); ++i) {
    // Matching reads the original device; edits go to the copy.
    DeviceView view(driver, pool, slice.spec.devices[i]);
    api::Device& device = out.spec.devices[i];
    for (const Patch* p : patches) {
      if (matches(p->filter, p->object, view)) {
        ApplyPatch(p->spec, driver, device);
      }
    }
    for (const Rule* r : rules) {
      if (matches(r->filter, r->object, view)) {
        device.taints.push_back(r->taint);
      }
    }
  }
  return out;
}

}  // namespace dralloc::allocator
