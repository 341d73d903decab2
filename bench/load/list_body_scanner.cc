#include "load/list_body_scanner.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <vector>

namespace dralloc::load {
namespace {

using nlohmann::json;

// Tracks the container path just far enough to recognise items[*] and the
// two string fields of the top-level metadata.
class ListSaxHandler : public nlohmann::json_sax<json> {
 public:
  explicit ListSaxHandler(ListBodySummary& summary) : summary_(summary) {}

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }

  bool string(string_t& value) override {
    // Depth 2: an object that is the value of a key of the root object.
    if (frames_.size() == 2 && !frames_[1].is_array &&
        frames_[1].key_in_parent == "metadata") {
      if (frames_[1].current_key == "resourceVersion") {
        summary_.resource_version = value;
      } else if (frames_[1].current_key == "continue") {
        summary_.continue_token = value;
      }
    }
    return true;
  }

  bool start_object(std::size_t) override { return Open(/*is_array=*/false); }
  bool start_array(std::size_t) override { return Open(/*is_array=*/true); }
  bool end_object() override { return Close(); }
  bool end_array() override { return Close(); }

  bool key(string_t& name) override {
    frames_.back().current_key = name;
    return true;
  }

  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& error) override {
    error_ = fmt::format("byte {}: {}", position, error.what());
    return false;
  }

  const std::string& error() const { return error_; }
  bool saw_root_object() const { return saw_root_object_; }

 private:
  struct Frame {
    bool is_array = false;
    std::string key_in_parent;
    std::string current_key;
  };

  bool Open(bool is_array) {
    Frame frame{.is_array = is_array};
    if (frames_.empty()) {
      saw_root_object_ = !is_array;
    } else if (!frames_.back().is_array) {
      frame.key_in_parent = frames_.back().current_key;
    }
    const bool is_item = !is_array && frames_.size() == 2 &&
                         frames_[1].is_array &&
                         frames_[1].key_in_parent == "items";
    if (is_item) ++summary_.item_count;
    frames_.push_back(std::move(frame));
    return true;
  }

  bool Close() {
    frames_.pop_back();
    return true;
  }

  ListBodySummary& summary_;
  std::vector<Frame> frames_;
  std::string error_;
  bool saw_root_object_ = false;
};

}  // namespace

StatusOr<ListBodySummary> ScanListBody(std::string_view body) {
  ListBodySummary summary;
  ListSaxHandler handler(summary);
  bool parsed = false;
  try {
    parsed = json::sax_parse(body.begin(), body.end(), &handler);
  } catch (const json::exception& error) {
    return InvalidArgumentError(
        fmt::format("list body is not JSON: {}", error.what()));
  }
  if (!parsed) {
    return InvalidArgumentError(
        fmt::format("list body is not JSON: {}", handler.error()));
  }
  if (!handler.saw_root_object()) {
    return InvalidArgumentError("list body is not a JSON object");
  }
  return summary;
}

}  // namespace dralloc::load
