// ScanWatchEventLine: reads the event type and the object's resourceVersion
// from one line of a Kubernetes watch stream.
//
// A fan-out run reads millions of event lines, so the common compact form
// (`{"type":"ADDED","object":{...}}`) is scanned without building a JSON
// tree: the type is the value right after `{"type":"`, and the first
// `"resourceVersion":"` in the line is taken as the object's
// metadata.resourceVersion. That holds for ResourceClaim events (no field of
// a claim's spec or status is called resourceVersion). Any other line shape
// falls back to a full JSON parse.
#ifndef DRALLOC_BENCH_LOAD_WATCH_EVENT_SCANNER_H_
#define DRALLOC_BENCH_LOAD_WATCH_EVENT_SCANNER_H_

#include <optional>
#include <string>
#include <string_view>

namespace dralloc::load {

struct WatchEventLine {
  std::string type;
  // object.metadata.resourceVersion; empty when the object has none.
  std::string resource_version;
};

// nullopt when the line is not a JSON object with a string "type".
std::optional<WatchEventLine> ScanWatchEventLine(std::string_view line);

}  // namespace dralloc::load

#endif  // DRALLOC_BENCH_LOAD_WATCH_EVENT_SCANNER_H_
