#include "cdi/internal/spec_decoder.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <limits>

#include "cdi/internal/field_error.h"
#include "common/text_escape.h"

namespace dralloc::cdi::internal {
namespace {

using Element = simdjson::dom::element;
using Type = simdjson::dom::element_type;

// One known field of an object and how to decode its value.
struct Field {
  std::string_view name;
  std::function<Status(Element, const std::string& path)> decode;
};

// The value as an error message shows it: scalars as text, containers by
// their JSON type.
std::string Render(Element e) {
  switch (e.type()) {
    case Type::OBJECT:
      return "object";
    case Type::ARRAY:
      return "array";
    case Type::STRING:
      return GoQuote(e.get_string().value_unsafe());
    case Type::INT64:
      return std::to_string(e.get_int64().value_unsafe());
    case Type::UINT64:
      return std::to_string(e.get_uint64().value_unsafe());
    case Type::DOUBLE:
      return fmt::format("{}", e.get_double().value_unsafe());
    case Type::BOOL:
      return e.get_bool().value_unsafe() ? "true" : "false";
    case Type::NULL_VALUE:
      return "null";
  }
  return "value";
}

Status TypeError(Element e, std::string_view path, std::string_view wanted) {
  return InvalidRawError(path, Render(e), fmt::format("must be {}", wanted));
}

// Decodes the members of an object by `fields`; null is an empty object.
Status DecodeObject(Element e, std::string_view path,
                    std::initializer_list<Field> fields) {
  if (e.is_null()) return OkStatus();
  if (e.type() != Type::OBJECT) return TypeError(e, path, "an object");
  std::vector<std::string_view> seen;
  for (auto [key, value] : simdjson::dom::object(e)) {
    std::string field_path = Child(path, key);
    if (std::ranges::find(seen, key) != seen.end()) {
      return DuplicateFieldError(field_path);
    }
    seen.push_back(key);
    auto field = std::ranges::find(fields, key, &Field::name);
    if (field == fields.end()) return UnknownFieldError(field_path);
    RETURN_IF_ERROR(field->decode(value, field_path));
  }
  return OkStatus();
}

// Decodes each element of an array with `item`; null is an empty array.
template <typename T>
Status DecodeList(
    Element e, std::string_view path, std::vector<T>& out,
    const std::function<Status(Element, const std::string&, T&)>& item) {
  out.clear();
  if (e.is_null()) return OkStatus();
  if (e.type() != Type::ARRAY) return TypeError(e, path, "an array");
  size_t index = 0;
  for (Element value : simdjson::dom::array(e)) {
    RETURN_IF_ERROR(item(value, Index(path, index++), out.emplace_back()));
  }
  return OkStatus();
}

Status DecodeString(Element e, const std::string& path, std::string& out) {
  if (e.is_null()) return OkStatus();
  if (e.type() != Type::STRING) return TypeError(e, path, "a string");
  out = e.get_string().value_unsafe();
  return OkStatus();
}

Status DecodeStringList(Element e, const std::string& path,
                        std::vector<std::string>& out) {
  return DecodeList<std::string>(
      e, path, out, [](Element v, const std::string& p, std::string& s) {
        if (v.type() != Type::STRING) return TypeError(v, p, "a string");
        s = v.get_string().value_unsafe();
        return OkStatus();
      });
}

Status DecodeBool(Element e, const std::string& path, bool& out) {
  if (e.is_null()) return OkStatus();
  if (e.type() != Type::BOOL) return TypeError(e, path, "a boolean");
  out = e.get_bool().value_unsafe();
  return OkStatus();
}

// "0644" or "0o644" as an octal number (YAML 1.1 octal), else nullopt.
std::optional<int64_t> OctalText(std::string_view text) {
  if (text.starts_with("0o")) {
    text.remove_prefix(2);
  } else if (text.size() >= 2 && text[0] == '0') {
    text.remove_prefix(1);
  } else {
    return std::nullopt;
  }
  if (text.empty() || text.size() > 11) return std::nullopt;
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '7') return std::nullopt;
    value = value * 8 + (c - '0');
  }
  return value;
}

// An integer within [min, max]; `octal_text` also accepts OctalText().
template <typename T>
Status DecodeInteger(Element e, const std::string& path, std::optional<T>& out,
                     bool octal_text = false) {
  constexpr int64_t kMin = std::numeric_limits<T>::min();
  constexpr uint64_t kMax = std::numeric_limits<T>::max();
  if (e.is_null()) return OkStatus();
  std::optional<int64_t> value;
  if (e.type() == Type::INT64) value = e.get_int64().value_unsafe();
  if (octal_text && e.type() == Type::STRING) {
    value = OctalText(e.get_string().value_unsafe());
  }
  if (!value) {
    if (e.type() == Type::UINT64) {
      return InvalidRawError(path, Render(e), "is out of range");
    }
    return TypeError(e, path, "an integer");
  }
  if (*value < kMin || (*value > 0 && static_cast<uint64_t>(*value) > kMax)) {
    return InvalidRawError(
        path, Render(e), fmt::format("must be between {} and {}", kMin, kMax));
  }
  out = static_cast<T>(*value);
  return OkStatus();
}

Status DecodeStringMap(Element e, const std::string& path,
                       std::map<std::string, std::string>& out) {
  if (e.is_null()) return OkStatus();
  if (e.type() != Type::OBJECT) return TypeError(e, path, "an object");
  for (auto [key, value] : simdjson::dom::object(e)) {
    std::string entry = Key(path, key);
    if (value.type() != Type::STRING)
      return TypeError(value, entry, "a string");
    if (!out.emplace(key, value.get_string().value_unsafe()).second) {
      return DuplicateFieldError(entry);
    }
  }
  return OkStatus();
}

class Decoder {
 public:
  explicit Decoder(const DecodeOptions& options) : options_(options) {}

  Status DecodeSpec(Element e, Spec& out) const;

 private:
  Status DecodeDevice(Element e, const std::string& path, Device& out) const;
  Status DecodeEdits(Element e, const std::string& path,
                     ContainerEdits& out) const;
  Status DecodeDeviceNode(Element e, const std::string& path,
                          DeviceNode& out) const;
  Status DecodeMount(Element e, const std::string& path, Mount& out) const;
  Status DecodeHook(Element e, const std::string& path, Hook& out) const;
  Status DecodeIntelRdt(Element e, const std::string& path,
                        std::optional<IntelRdt>& out) const;
  Status DecodeNetDevice(Element e, const std::string& path,
                         NetDevice& out) const;

  // `method` bound to this decoder, as a list item decoder.
  template <typename T>
  std::function<Status(Element, const std::string&, T&)> Item(
      Status (Decoder::*method)(Element, const std::string&, T&) const) const {
    return [this, method](Element e, const std::string& p, T& out) {
      return (this->*method)(e, p, out);
    };
  }

  DecodeOptions options_;
};

Status Decoder::DecodeSpec(Element e, Spec& out) const {
  if (e.type() != Type::OBJECT) {
    return InvalidArgumentError(
        fmt::format("Invalid value: {}: a spec must be an object", Render(e)));
  }
  using P = const std::string&;
  return DecodeObject(
      e, "",
      {{"cdiVersion",
        [&](Element v, P p) { return DecodeString(v, p, out.cdi_version); }},
       {"kind", [&](Element v, P p) { return DecodeString(v, p, out.kind); }},
       {"annotations",
        [&](Element v, P p) { return DecodeStringMap(v, p, out.annotations); }},
       {"devices",
        [&](Element v, P p) {
          return DecodeList(v, p, out.devices, Item(&Decoder::DecodeDevice));
        }},
       {"containerEdits", [&](Element v, P p) {
          return DecodeEdits(v, p, out.container_edits);
        }}});
}

Status Decoder::DecodeDevice(Element e, const std::string& path,
                             Device& out) const {
  using P = const std::string&;
  return DecodeObject(
      e, path,
      {{"name", [&](Element v, P p) { return DecodeString(v, p, out.name); }},
       {"annotations",
        [&](Element v, P p) { return DecodeStringMap(v, p, out.annotations); }},
       {"containerEdits", [&](Element v, P p) {
          return DecodeEdits(v, p, out.container_edits);
        }}});
}

Status Decoder::DecodeEdits(Element e, const std::string& path,
                            ContainerEdits& out) const {
  using P = const std::string&;
  return DecodeObject(
      e, path,
      {{"env", [&](Element v, P p) { return DecodeStringList(v, p, out.env); }},
       {"deviceNodes",
        [&](Element v, P p) {
          return DecodeList(v, p, out.device_nodes,
                            Item(&Decoder::DecodeDeviceNode));
        }},
       {"netDevices",
        [&](Element v, P p) {
          return DecodeList(v, p, out.net_devices,
                            Item(&Decoder::DecodeNetDevice));
        }},
       {"hooks",
        [&](Element v, P p) {
          return DecodeList(v, p, out.hooks, Item(&Decoder::DecodeHook));
        }},
       {"mounts",
        [&](Element v, P p) {
          return DecodeList(v, p, out.mounts, Item(&Decoder::DecodeMount));
        }},
       {"intelRdt",
        [&](Element v, P p) { return DecodeIntelRdt(v, p, out.intel_rdt); }},
       {"additionalGids", [&](Element v, P p) {
          return DecodeList<uint32_t>(
              v, p, out.additional_gids, [](Element item, P ip, uint32_t& gid) {
                std::optional<uint32_t> value;
                RETURN_IF_ERROR(DecodeInteger(item, ip, value));
                if (!value) return TypeError(item, ip, "an integer");
                gid = *value;
                return OkStatus();
              });
        }}});
}

Status Decoder::DecodeDeviceNode(Element e, const std::string& path,
                                 DeviceNode& out) const {
  using P = const std::string&;
  bool yaml = options_.yaml;
  return DecodeObject(
      e, path,
      {{"path", [&](Element v, P p) { return DecodeString(v, p, out.path); }},
       {"hostPath",
        [&](Element v, P p) { return DecodeString(v, p, out.host_path); }},
       {"type", [&](Element v, P p) { return DecodeString(v, p, out.type); }},
       {"major",
        [&](Element v, P p) { return DecodeInteger(v, p, out.major); }},
       {"minor",
        [&](Element v, P p) { return DecodeInteger(v, p, out.minor); }},
       {"fileMode",
        [&](Element v, P p) {
          return DecodeInteger(v, p, out.file_mode, /*octal_text=*/yaml);
        }},
       {"permissions",
        [&](Element v, P p) { return DecodeString(v, p, out.permissions); }},
       {"uid", [&](Element v, P p) { return DecodeInteger(v, p, out.uid); }},
       {"gid", [&](Element v, P p) { return DecodeInteger(v, p, out.gid); }}});
}

Status Decoder::DecodeMount(Element e, const std::string& path,
                            Mount& out) const {
  using P = const std::string&;
  return DecodeObject(
      e, path,
      {{"hostPath",
        [&](Element v, P p) { return DecodeString(v, p, out.host_path); }},
       {"containerPath",
        [&](Element v, P p) { return DecodeString(v, p, out.container_path); }},
       {"type", [&](Element v, P p) { return DecodeString(v, p, out.type); }},
       {"options",
        [&](Element v, P p) { return DecodeStringList(v, p, out.options); }}});
}

Status Decoder::DecodeHook(Element e, const std::string& path,
                           Hook& out) const {
  using P = const std::string&;
  return DecodeObject(
      e, path,
      {{"hookName",
        [&](Element v, P p) { return DecodeString(v, p, out.hook_name); }},
       {"path", [&](Element v, P p) { return DecodeString(v, p, out.path); }},
       {"args",
        [&](Element v, P p) { return DecodeStringList(v, p, out.args); }},
       {"env", [&](Element v, P p) { return DecodeStringList(v, p, out.env); }},
       {"timeout",
        [&](Element v, P p) { return DecodeInteger(v, p, out.timeout); }}});
}

Status Decoder::DecodeIntelRdt(Element e, const std::string& path,
                               std::optional<IntelRdt>& out) const {
  if (e.is_null()) return OkStatus();
  IntelRdt& rdt = out.emplace();
  using P = const std::string&;
  return DecodeObject(
      e, path,
      {{"closID",
        [&](Element v, P p) { return DecodeString(v, p, rdt.clos_id); }},
       {"l3CacheSchema",
        [&](Element v, P p) {
          return DecodeString(v, p, rdt.l3_cache_schema);
        }},
       {"memBwSchema",
        [&](Element v, P p) { return DecodeString(v, p, rdt.mem_bw_schema); }},
       {"schemata",
        [&](Element v, P p) { return DecodeStringList(v, p, rdt.schemata); }},
       {"enableMonitoring", [&](Element v, P p) {
          return DecodeBool(v, p, rdt.enable_monitoring);
        }}});
}

Status Decoder::DecodeNetDevice(Element e, const std::string& path,
                                NetDevice& out) const {
  using P = const std::string&;
  return DecodeObject(
      e, path,
      {{"hostInterfaceName",
        [&](Element v, P p) {
          return DecodeString(v, p, out.host_interface_name);
        }},
       {"name", [&](Element v, P p) { return DecodeString(v, p, out.name); }}});
}

}  // namespace

StatusOr<Spec> DecodeSpec(simdjson::dom::element root,
                          const DecodeOptions& options) {
  Spec spec;
  RETURN_IF_ERROR(Decoder(options).DecodeSpec(root, spec));
  return spec;
}

}  // namespace dralloc::cdi::internal
