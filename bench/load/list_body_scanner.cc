#include "load/list_body_scanner.h"

#include <fmt/format.h>
#include <simdjson.h>

namespace dralloc::load {

StatusOr<ListBodySummary> ScanListBody(std::string_view body) {
  // One parser per thread keeps its buffers across pages. simdjson validates
  // the whole document at several GB/s, so the scan does not pace the client.
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto error = parser.parse(body.data(), body.size()).get(root)) {
    return InvalidArgumentError(fmt::format("list body is not JSON: {}",
                                            simdjson::error_message(error)));
  }
  simdjson::dom::object list;
  if (root.get_object().get(list)) {
    return InvalidArgumentError("list body is not a JSON object");
  }
  ListBodySummary summary;
  simdjson::dom::array items;
  if (!list["items"].get_array().get(items)) {
    summary.item_count = static_cast<std::int64_t>(items.size());
  }
  simdjson::dom::object metadata;
  if (!list["metadata"].get_object().get(metadata)) {
    std::string_view text;
    if (!metadata["resourceVersion"].get_string().get(text)) {
      summary.resource_version = std::string(text);
    }
    if (!metadata["continue"].get_string().get(text)) {
      summary.continue_token = std::string(text);
    }
  }
  return summary;
}

}  // namespace dralloc::load
