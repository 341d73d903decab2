#include "cel/dra/dra_environment.h"

#include <algorithm>
#include <deque>

#include "cel/lib/quantity_library.h"
#include "fmt/format.h"

namespace dralloc::cel {

namespace {

constexpr std::string_view kDeviceTypeName = "kubernetes.DRADevice";
constexpr std::string_view kDeviceFields[] = {
    "driver", "attributes", "capacity", "allowMultipleAllocations"};

constexpr std::string_view kNoSuchKeyHint =
    ". consider using CEL optional chaining (.? followed by orValue()) or "
    "guarding the check with has() for optional fields";

std::shared_ptr<const SizeInfo> Sized(
    uint64_t max, std::shared_ptr<const SizeInfo> key = {},
    std::shared_ptr<const SizeInfo> elem = {}) {
  auto s = std::make_shared<SizeInfo>();
  s->size = {0, max};
  s->key = std::move(key);
  s->elem = std::move(elem);
  return s;
}

ObjectTypeDecl DeviceTypeDecl() {
  auto domain_key = Sized(kDriverNameMaxLength);
  auto name_key = Sized(32);
  auto attributes = Sized(kMaxAttributesAndCapacities, domain_key,
                          Sized(kMaxAttributesAndCapacities, name_key,
                                Sized(kAttributeValueMaxSize)));
  auto capacity = Sized(kMaxAttributesAndCapacities, domain_key,
                        Sized(kMaxAttributesAndCapacities, name_key, Sized(1)));
  ObjectTypeDecl decl;
  decl.name = std::string(kDeviceTypeName);
  decl.fields.push_back(
      {"driver", Type::String(), *Sized(kDriverNameMaxLength)});
  decl.fields.push_back(
      {"attributes",
       Type::Map(Type::String(), Type::Map(Type::String(), Type::Dyn())),
       *attributes});
  decl.fields.push_back(
      {"capacity",
       Type::Map(Type::String(),
                 Type::Map(Type::String(), Type::Opaque(kQuantityTypeName))),
       *capacity});
  decl.fields.push_back({"allowMultipleAllocations", Type::Bool(), *Sized(1)});
  return decl;
}

EnvironmentOptions KubernetesOptions() {
  EnvironmentOptions options;
  options.homogeneous_aggregate_literals = true;
  options.presence_test_cost = 0;
  options.require_bool_result = true;
  return options;
}

std::pair<std::string_view, std::string_view> SplitQualified(
    std::string_view name, std::string_view driver) {
  size_t slash = name.find('/');
  if (slash == std::string_view::npos) return {driver, name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

}  // namespace

// ---- device views ----

class DraDevice::NameMap final : public MapValue {
 public:
  void Put(std::string_view name, Value value) {
    auto it = std::lower_bound(
        entries_.begin(), entries_.end(), name,
        [](const auto& e, std::string_view n) { return e.first < n; });
    if (it != entries_.end() && it->first == name) {
      it->second = std::move(value);
      return;
    }
    size_t at = it - entries_.begin();
    entries_.emplace(it, std::string(name), std::move(value));
    const std::string* id = Intern(name);
    has_uninterned_ |= id == nullptr;
    ids_.insert(ids_.begin() + at, id);
  }
  bool FindInterned(const std::string* key, Value* out) const override {
    for (size_t i = 0; i < ids_.size(); ++i) {
      if (ids_[i] == key) {
        *out = Value::Alias(entries_[i].second);
        return true;
      }
    }
    return FindString(*key, out);  // names the table could not intern
  }
  const Value* FindInternedRef(const std::string* key) const override {
    if (has_uninterned_) return nullptr;
    const size_t n = ids_.size();
    for (size_t i = 0; i < n; ++i) {
      if (ids_[i] == key) return &entries_[i].second;
    }
    return MissingKey();
  }
  // FindInternedPathRef without a virtual call per level.
  size_t FindPathRef(const std::string* const* keys, size_t n,
                     const Value** out) const {
    const Value* ref = NameMap::FindInternedRef(keys[0]);
    if (ref == nullptr) return 0;
    *out = ref;
    if (ref == MissingKey()) return 0;
    if (n == 1 || ref->kind() != ValueKind::kMap) return 1;
    return 1 + ref->map().FindInternedPathRef(keys + 1, n - 1, out);
  }
  size_t Size() const override { return entries_.size(); }
  bool Find(const Value& key, Value* out) const override {
    if (key.kind() != ValueKind::kString) return false;
    return FindString(key.string_view(), out);
  }
  // Linear: a device has at most 32 names per domain, and comparing the
  // length and first byte first rejects almost every other name cheaply.
  bool FindString(std::string_view key, Value* out) const override {
    for (const auto& [name, value] : entries_) {
      if (name.size() == key.size() && !key.empty() && name[0] == key[0] &&
          std::string_view(name) == key) {
        *out = Value::Alias(value);
        return true;
      }
    }
    if (key.empty()) {
      for (const auto& [name, value] : entries_) {
        if (name.empty()) {
          *out = Value::Alias(value);
          return true;
        }
      }
    }
    return false;
  }
  Value KeyAt(size_t i) const override {
    return Value::BorrowedString(entries_[i].first);
  }
  Value ValueAt(size_t i) const override {
    return Value::Alias(entries_[i].second);
  }

 private:
  std::vector<std::pair<std::string, Value>> entries_;  // sorted by name
  std::vector<const std::string*> ids_;                 // interned names
  bool has_uninterned_ = false;
};

class DraDevice::DomainMap final : public MapValue {
 public:
  NameMap& Domain(std::string_view domain) {
    for (auto& [name, map] : domains_) {
      if (name == domain) return *map;
    }
    domains_.emplace_back(std::string(domain), std::make_unique<NameMap>());
    const std::string* id = Intern(domain);
    has_uninterned_ |= id == nullptr;
    ids_.push_back(id);
    values_.push_back(Value::BorrowedMap(domains_.back().second.get()));
    refs_.push_back(&values_.back());
    return *domains_.back().second;
  }
  const Value* FindInternedRef(const std::string* key) const override {
    if (has_uninterned_) return nullptr;
    const size_t n = ids_.size();
    for (size_t i = 0; i < n; ++i) {
      if (ids_[i] == key) return refs_[i];
    }
    return &empty_;  // unknown domains read as empty maps
  }
  // FindInternedPathRef without a virtual call per level.
  size_t FindPathRef(const std::string* const* keys, size_t n,
                     const Value** out) const {
    if (has_uninterned_) return 0;
    const size_t count = ids_.size();
    for (size_t i = 0; i < count; ++i) {
      if (ids_[i] == keys[0]) {
        *out = refs_[i];
        if (n == 1) return 1;
        return 1 + domains_[i].second->FindPathRef(keys + 1, n - 1, out);
      }
    }
    // The empty map of an unknown domain answers nothing by reference.
    *out = &empty_;
    return 1;
  }
  bool FindInterned(const std::string* key, Value* out) const override {
    for (size_t i = 0; i < ids_.size(); ++i) {
      if (ids_[i] == key) {
        *out = Value::BorrowedMap(domains_[i].second.get());
        return true;
      }
    }
    return FindString(*key, out);
  }
  size_t Size() const override { return domains_.size(); }
  bool Find(const Value& key, Value* out) const override {
    if (key.kind() != ValueKind::kString) return false;
    return FindString(key.string_view(), out);
  }
  // Unknown domains read as empty maps, like Kubernetes' mapper.
  bool FindString(std::string_view key, Value* out) const override {
    for (const auto& [name, map] : domains_) {
      if (name == key) {
        *out = Value::BorrowedMap(map.get());
        return true;
      }
    }
    *out = Value::BorrowedMap(&EmptyMap());
    return true;
  }
  bool Contains(const Value& key) const override {
    if (key.kind() != ValueKind::kString) return false;
    for (const auto& [name, map] : domains_) {
      if (name == key.string_view()) return true;
    }
    return false;
  }
  Value KeyAt(size_t i) const override {
    return Value::BorrowedString(domains_[i].first);
  }
  Value ValueAt(size_t i) const override {
    return Value::BorrowedMap(domains_[i].second.get());
  }

 private:
  std::vector<std::pair<std::string, std::unique_ptr<NameMap>>> domains_;
  std::vector<const std::string*> ids_;  // interned domains
  std::deque<Value> values_;             // borrowed views of the name maps
  std::vector<const Value*> refs_;       // &values_[i], for lookups by ref
  const Value empty_ = Value::BorrowedMap(&EmptyMap());
  bool has_uninterned_ = false;
};

DraDevice::DraDevice(std::string driver)
    : driver_(std::move(driver)),
      attributes_(std::make_unique<DomainMap>()),
      capacity_(std::make_unique<DomainMap>()),
      driver_value_(Value::BorrowedString(driver_)),
      attributes_value_(Value::BorrowedMap(attributes_.get())),
      capacity_value_(Value::BorrowedMap(capacity_.get())) {}

DraDevice::~DraDevice() = default;

void DraDevice::AddAttribute(std::string_view qualified_name, Value value) {
  auto [domain, name] = SplitQualified(qualified_name, driver_);
  attributes_->Domain(domain).Put(name, std::move(value));
}

void DraDevice::AddCapacity(std::string_view qualified_name,
                            const Quantity& quantity) {
  auto [domain, name] = SplitQualified(qualified_name, driver_);
  capacity_->Domain(domain).Put(name,
                                Value::Opaque(new QuantityValue(quantity)));
}

namespace {
// Interned field names, resolved once at start-up (no guard per lookup).
const std::string* const kDriverId = Intern("driver");
const std::string* const kAttributesId = Intern("attributes");
const std::string* const kCapacityId = Intern("capacity");
}  // namespace

const Value* DraDevice::FindInternedRef(const std::string* key) const {
  if (key == kAttributesId) return &attributes_value_;
  if (key == kCapacityId) return &capacity_value_;
  if (key == kDriverId) return &driver_value_;
  return nullptr;
}

size_t DraDevice::FindInternedPathRef(const std::string* const* keys, size_t n,
                                      const Value** out) const {
  const std::string* key = keys[0];
  const DomainMap* domains;
  if (key == kAttributesId) {
    *out = &attributes_value_;
    domains = attributes_.get();
  } else if (key == kCapacityId) {
    *out = &capacity_value_;
    domains = capacity_.get();
  } else if (key == kDriverId) {
    *out = &driver_value_;
    return 1;
  } else {
    return 0;
  }
  if (n == 1) return 1;
  return 1 + domains->FindPathRef(keys + 1, n - 1, out);
}

bool DraDevice::FindInterned(const std::string* key, Value* out) const {
  if (key == kAttributesId) {
    *out = Value::BorrowedMap(attributes_.get());
  } else if (key == kCapacityId) {
    *out = Value::BorrowedMap(capacity_.get());
  } else if (key == kDriverId) {
    *out = Value::BorrowedString(driver_);
  } else {
    return FindString(*key, out);
  }
  return true;
}

bool DraDevice::FindString(std::string_view key, Value* out) const {
  // Dispatch on the length first: each field name has a distinct length.
  switch (key.size()) {
    case 6:
    case 10:
    case 8:
    case 24:
      break;
    default:
      return false;
  }
  if (key == "driver") {
    *out = Value::BorrowedString(driver_);
  } else if (key == "attributes") {
    *out = Value::BorrowedMap(attributes_.get());
  } else if (key == "capacity") {
    *out = Value::BorrowedMap(capacity_.get());
  } else if (key == "allowMultipleAllocations") {
    *out = Value::Bool(allow_multiple_);
  } else {
    return false;
  }
  return true;
}

bool DraDevice::Find(const Value& key, Value* out) const {
  if (key.kind() != ValueKind::kString) return false;
  return FindString(key.string_view(), out);
}

Value DraDevice::KeyAt(size_t index) const {
  return Value::BorrowedString(kDeviceFields[index]);
}

Value DraDevice::ValueAt(size_t index) const {
  Value out;
  FindString(kDeviceFields[index], &out);
  return out;
}

// ---- environments ----

namespace {

struct DraEnvironments {
  std::shared_ptr<const Environment> selector;
  std::shared_ptr<const Environment> exploration;
  int device_slot;
  std::shared_ptr<const Environment> constraint;
  int devices_slot;
};

const DraEnvironments& Environments() {
  static const DraEnvironments* envs = [] {
    auto* out = new DraEnvironments();
    auto selector = Environment::NewStandard(KubernetesOptions());
    selector->DeclareObjectType(DeviceTypeDecl());
    out->device_slot = selector->DeclareVariable(
        "device", Type::Object(kDeviceTypeName), *Sized(4));
    out->selector = selector;
    EnvironmentOptions open_options = KubernetesOptions();
    open_options.require_bool_result = false;
    auto exploration = Environment::NewStandard(open_options);
    exploration->DeclareObjectType(DeviceTypeDecl());
    exploration->DeclareVariable("device", Type::Object(kDeviceTypeName),
                                 *Sized(4));
    out->exploration = exploration;
    auto constraint = Environment::NewStandard(KubernetesOptions());
    constraint->DeclareObjectType(DeviceTypeDecl());
    out->devices_slot = constraint->DeclareVariable(
        "devices", Type::List(Type::Object(kDeviceTypeName)),
        *Sized(kMaxDevicesPerClaim, nullptr, Sized(4)));
    out->constraint = constraint;
    return out;
  }();
  return *envs;
}

ExpressionCheck CheckIn(std::shared_ptr<const Environment> env,
                        std::string_view text) {
  ExpressionCheck out;
  CompileOptions options;
  options.estimate_cost = true;
  StatusOr<std::shared_ptr<const Program>> program =
      Compile(std::move(env), text, options);
  if (!program.ok()) {
    out.compile_error = program.status();
    return out;
  }
  out.cost = (*program)->estimated_cost();
  out.too_complex = out.cost.max > kSelectorExpressionMaxCost;
  return out;
}

Status ResultError(const Value& result) {
  std::string message = result.error_message();
  if (message.find("no such key") != std::string::npos) {
    message += kNoSuchKeyHint;
  }
  return InvalidArgumentError(std::move(message));
}

StatusOr<bool> ToBool(const Value& result) {
  if (result.IsError()) return ResultError(result);
  if (!result.IsBool()) {
    return InvalidArgumentError(
        fmt::format("CEL result of type {} could not be converted to bool",
                    result.TypeName()));
  }
  return result.bool_value();
}

}  // namespace

std::shared_ptr<const Environment> SelectorEnvironment() {
  return Environments().selector;
}
int DeviceSlot() { return Environments().device_slot; }
std::shared_ptr<const Environment> ConstraintEnvironment() {
  return Environments().constraint;
}
int DevicesSlot() { return Environments().devices_slot; }
std::shared_ptr<const Environment> DeviceExplorationEnvironment() {
  return Environments().exploration;
}

ExpressionCheck CheckSelectorExpression(std::string_view text) {
  return CheckIn(SelectorEnvironment(), text);
}
ExpressionCheck CheckConstraintExpression(std::string_view text) {
  return CheckIn(ConstraintEnvironment(), text);
}
std::shared_ptr<const Environment> DerivedAttributeEnvironment() {
  return Environments().exploration;
}

namespace {

bool DerivableScalar(const Type& type) {
  switch (type.kind()) {
    case TypeKind::kDyn:
    case TypeKind::kString:
    case TypeKind::kInt:
    case TypeKind::kBool:
    case TypeKind::kTypeParam:
      return true;
    case TypeKind::kOpaque:
      return type.name() == kSemverTypeName;
    default:
      return false;
  }
}

bool DerivableType(const Type& type) {
  if (type.kind() == TypeKind::kList) {
    return type.params().empty() || DerivableScalar(type.param(0));
  }
  return DerivableScalar(type);
}

}  // namespace

ExpressionCheck CheckDerivedAttributeExpression(std::string_view text) {
  ExpressionCheck out;
  CompileOptions options;
  options.estimate_cost = true;
  StatusOr<std::shared_ptr<const Program>> program =
      Compile(DerivedAttributeEnvironment(), text, options);
  if (!program.ok()) {
    out.compile_error = program.status();
    return out;
  }
  const Type& result = (*program)->result_type();
  if (!DerivableType(result)) {
    out.compile_error = InvalidArgumentError(fmt::format(
        "must evaluate to a string, int, bool or semver, or a list of one of "
        "them, not {}",
        result.ToString()));
    return out;
  }
  out.cost = (*program)->estimated_cost();
  out.too_complex = out.cost.max > kSelectorExpressionMaxCost;
  return out;
}

// ---- cache ----

ProgramCache::ProgramCache(std::shared_ptr<const Environment> env,
                           size_t capacity)
    : env_(std::move(env)), capacity_(capacity) {}

StatusOr<std::shared_ptr<const Program>> ProgramCache::GetOrCompile(
    std::string_view text) {
  {
    MutexLock lock(mu_);
    auto it = index_.find(text);
    if (it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      return it->second->second;
    }
  }
  CompileOptions options;
  options.estimate_cost = false;  // the scheduler only enforces runtime cost
  StatusOr<std::shared_ptr<const Program>> compiled =
      Compile(env_, text, options);
  MutexLock lock(mu_);
  auto it = index_.find(text);
  if (it != index_.end()) return it->second->second;
  lru_.emplace_front(std::string(text), compiled);
  index_.emplace(lru_.front().first, lru_.begin());
  while (lru_.size() > capacity_) {
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
  return compiled;
}

size_t ProgramCache::size() const {
  MutexLock lock(mu_);
  return lru_.size();
}

ProgramCache& SelectorCache() {
  static ProgramCache* cache = new ProgramCache(SelectorEnvironment(), 10'000);
  return *cache;
}

ProgramCache& ConstraintCache() {
  static ProgramCache* cache = new ProgramCache(ConstraintEnvironment(), 1'000);
  return *cache;
}

ProgramCache& DerivedAttributeCache() {
  static ProgramCache* cache =
      new ProgramCache(DerivedAttributeEnvironment(), 1'000);
  return *cache;
}

// ---- evaluation ----

StatusOr<Value> EvaluateDerivedAttribute(const Program& program,
                                         const DraDevice& device,
                                         EvalContext& ctx) {
  Activation activation(program.environment());
  activation.Set(DeviceSlot(), device.AsValue());
  Value result = program.Evaluate(activation, ctx);
  if (result.IsError()) return ResultError(result);
  return result;
}

StatusOr<bool> MatchSelector(const Program& program, const DraDevice& device,
                             EvalContext& ctx) {
  Activation activation(program.environment());
  activation.Set(DeviceSlot(), device.AsValue());
  return ToBool(program.Evaluate(activation, ctx));
}

StatusOr<bool> MatchConstraint(const Program& program,
                               std::span<const DraDevice* const> devices,
                               EvalContext& ctx) {
  std::vector<Value> items;
  items.reserve(devices.size());
  for (const DraDevice* d : devices) items.push_back(d->AsValue());
  Activation activation(program.environment());
  activation.Set(DevicesSlot(), Value::List(new VectorList(std::move(items))));
  return ToBool(program.Evaluate(activation, ctx));
}

}  // namespace dralloc::cel
