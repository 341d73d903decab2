// Writing JSON values as YAML for people to read.
#ifndef DRALLOC_ENCODING_YAML_WRITER_H_
#define DRALLOC_ENCODING_YAML_WRITER_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dralloc::encoding {

// Renders JSON values as block-style YAML that our reader (and Kubernetes)
// reads back to the same JSON. Object keys keep their order. Strings that a
// YAML reader could take for something else (numbers, booleans, null, YAML 1.1
// forms such as "yes" or "0x1F", text with leading or trailing space, ...) are
// quoted; multi-line strings use literal blocks where that reads back exactly.
// Invalid UTF-8 in strings is replaced by U+FFFD. Floating-point numbers are
// written plainly (our reader takes them back as strings, since our schema
// has no float fields). The result ends with a newline.
std::string ToYaml(const nlohmann::ordered_json& value);

// Several documents separated by "---\n" (the first without a leading
// separator). Empty for no values.
std::string ToYamlStream(const std::vector<nlohmann::ordered_json>& values);

}  // namespace dralloc::encoding

#endif  // DRALLOC_ENCODING_YAML_WRITER_H_
