// Runs the request scenarios under tests/golden/apiserver/ against an
// in-process server on an in-memory store.
//
// A scenario file is YAML: `options:` (optional) sets
//   windowEvents: N                  (the store's watch/list event window)
//   tooLargeResourceVersionWaitMs: M (how long a list waits for a newer
//                                     resourceVersion before its 504)
// and `steps:` is a list of
//   request: "METHOD /path?query"
//   contentType: ...          (optional; default application/json)
//   body: <object or string>  (optional; a string is sent verbatim)
//   expect:
//     code: 201
//     json: <subset>          (every key given must be present and equal;
//                              lists must have the same length)
//     contains: [text, ...]   (substrings of the body)
//     lines: [<subset>, ...]  (watch streams: one subset per JSON line)
//     header: {Name: substring}
//   save: {var: dotted.path}  (later steps may use ${var} anywhere)
#include "apiserver/api_server.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "encoding/document_reader.h"
#include "store/memory_store.h"

namespace dralloc::apiserver {
namespace {

namespace fs = std::filesystem;

class RecordingWriter : public ResponseWriter {
 public:
  void AddHeader(std::string name, std::string value) override {
    headers.emplace_back(std::move(name), std::move(value));
  }
  void Send(int status, std::string type, std::string b) override {
    code = status;
    content_type = std::move(type);
    body = std::move(b);
  }
  bool StartStream(std::string type) override {
    code = 200;
    content_type = std::move(type);
    return true;
  }
  bool WriteChunk(std::string_view data) override {
    body += data;
    return true;
  }

  int code = 0;
  std::string content_type;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

std::string Substitute(std::string text,
                       const std::map<std::string, std::string>& vars) {
  for (const auto& [name, value] : vars) {
    const std::string token = "${" + name + "}";
    for (size_t at = text.find(token); at != std::string::npos;
         at = text.find(token, at + value.size())) {
      text.replace(at, token.size(), value);
    }
  }
  return text;
}

// Why `actual` does not contain `expected`, or "" when it does.
std::string Mismatch(const Json& expected, const Json& actual,
                     const std::string& path) {
  if (expected.is_object()) {
    if (!actual.is_object()) return path + ": not an object";
    for (const auto& [key, value] : expected.items()) {
      if (!actual.contains(key)) {
        if (value.is_null()) continue;
        return path + "." + key + ": missing";
      }
      std::string why = Mismatch(value, actual[key], path + "." + key);
      if (!why.empty()) return why;
    }
    return "";
  }
  if (expected.is_array()) {
    if (!actual.is_array() || actual.size() != expected.size()) {
      return path + ": expected " + expected.dump() + ", got " + actual.dump();
    }
    for (size_t i = 0; i < expected.size(); ++i) {
      std::string why = Mismatch(expected[i], actual[i],
                                 path + "[" + std::to_string(i) + "]");
      if (!why.empty()) return why;
    }
    return "";
  }
  if (expected != actual) {
    return path + ": expected " + expected.dump() + ", got " + actual.dump();
  }
  return "";
}

Json Lookup(const Json& root, std::string_view dotted) {
  const Json* node = &root;
  while (!dotted.empty()) {
    const size_t dot = dotted.find('.');
    const std::string part(dotted.substr(0, dot));
    dotted = dot == std::string_view::npos ? "" : dotted.substr(dot + 1);
    if (node->is_array()) {
      node = &(*node)[std::stoul(part)];
    } else if (node->contains(part)) {
      node = &(*node)[part];
    } else {
      return nullptr;
    }
  }
  return *node;
}

std::vector<fs::path> ScenarioFiles() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator("tests/golden/apiserver")) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class ScenarioTest : public testing::TestWithParam<fs::path> {};

TEST_P(ScenarioTest, Run) {
  std::ifstream in(GetParam());
  std::stringstream text;
  text << in.rdbuf();
  auto documents = encoding::ReadDocuments(text.str(), GetParam().string());
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_EQ(documents->size(), 1u);
  const Json scenario = Json::parse((*documents)[0].json);

  const Json settings = scenario.value("options", Json::object());
  store::StoreOptions store_options;
  if (settings.contains("windowEvents")) {
    store_options.window_events = settings["windowEvents"].get<size_t>();
  }
  store::MemoryStore store(store_options);
  ApiServerOptions options;
  options.max_watch_seconds = 1;
  options.too_large_resource_version_wait = std::chrono::milliseconds(
      settings.value("tooLargeResourceVersionWaitMs", 3000));
  ApiServer server(options, store);
  options.port = 0;  // the collector runs; requests bypass the network
  ASSERT_TRUE(server.Start().ok());
  std::map<std::string, std::string> vars;
  int index = 0;
  for (const Json& step : scenario.at("steps")) {
    const std::string trace = "step " + std::to_string(index++) + ": " +
                              step.at("request").get<std::string>();
    SCOPED_TRACE(trace);
    const std::string line =
        Substitute(step.at("request").get<std::string>(), vars);
    const size_t space = line.find(' ');
    HttpRequest request;
    request.method = line.substr(0, space);
    std::string target = line.substr(space + 1);
    const size_t question = target.find('?');
    request.path = target.substr(0, question);
    if (question != std::string::npos) {
      std::string_view query = std::string_view(target).substr(question + 1);
      while (!query.empty()) {
        const size_t amp = query.find('&');
        std::string_view pair = query.substr(0, amp);
        const size_t eq = pair.find('=');
        std::string value;
        DecodeUrlComponent(
            eq == std::string_view::npos ? "" : pair.substr(eq + 1), value);
        request.query.emplace(std::string(pair.substr(0, eq)), value);
        query = amp == std::string_view::npos ? "" : query.substr(amp + 1);
      }
    }
    request.content_type = step.value("contentType", "application/json");
    request.accept = step.value("accept", "application/json");
    if (step.contains("body")) {
      request.body = step["body"].is_string() ? step["body"].get<std::string>()
                                              : step["body"].dump();
      request.body = Substitute(request.body, vars);
    }
    RecordingWriter writer;
    server.Handle(request, writer);
    const Json expect = step.value("expect", Json::object());
    if (expect.contains("code")) {
      EXPECT_EQ(writer.code, expect["code"].get<int>()) << writer.body;
    }
    if (expect.contains("json")) {
      Json actual = Json::parse(writer.body, nullptr, false);
      ASSERT_FALSE(actual.is_discarded()) << writer.body;
      const std::string why = Mismatch(
          Json::parse(Substitute(expect["json"].dump(), vars)), actual, "");
      EXPECT_EQ(why, "") << writer.body;
    }
    const Json needles = expect.value("contains", Json::array());
    for (const Json& needle : needles) {
      EXPECT_NE(writer.body.find(Substitute(needle.get<std::string>(), vars)),
                std::string::npos)
          << "missing " << needle << " in " << writer.body;
    }
    if (expect.contains("lines")) {
      std::vector<Json> lines;
      std::istringstream stream(writer.body);
      for (std::string l; std::getline(stream, l);) {
        if (!l.empty()) lines.push_back(Json::parse(l, nullptr, false));
      }
      const Json& want = expect["lines"];
      ASSERT_EQ(lines.size(), want.size()) << writer.body;
      for (size_t i = 0; i < lines.size(); ++i) {
        EXPECT_EQ(Mismatch(Json::parse(Substitute(want[i].dump(), vars)),
                           lines[i], "line" + std::to_string(i)),
                  "");
      }
    }
    const Json headers = expect.value("header", Json::object());
    for (const auto& [name, needle] : headers.items()) {
      bool found = false;
      for (const auto& [header, value] : writer.headers) {
        if (header == name &&
            value.find(needle.get<std::string>()) != std::string::npos) {
          found = true;
        }
      }
      EXPECT_TRUE(found) << "header " << name << " with " << needle;
    }
    const Json saves = step.value("save", Json::object());
    for (const auto& [var, dotted] : saves.items()) {
      Json value = Lookup(Json::parse(writer.body, nullptr, false),
                          dotted.get<std::string>());
      vars[var] = value.is_string() ? value.get<std::string>() : value.dump();
    }
  }
}

// A list at a resourceVersion the store reaches while the list waits is
// served (the too-large wait ends early), at that revision or later.
TEST(ListWaitTest, ServesAResourceVersionReachedDuringTheWait) {
  store::MemoryStore store;
  ApiServerOptions options;
  options.port = 0;
  options.too_large_resource_version_wait = std::chrono::seconds(5);
  ApiServer server(options, store);
  ASSERT_TRUE(server.Start().ok());
  const int64_t target = store.Revision() + 1;
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    HttpRequest create;
    create.method = "POST";
    create.path = "/apis/resource.k8s.io/v1/deviceclasses";
    create.content_type = "application/json";
    create.accept = "application/json";
    create.body =
        R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"late.example.com"}})";
    RecordingWriter created;
    server.Handle(create, created);
    EXPECT_EQ(created.code, 201) << created.body;
  });
  HttpRequest list;
  list.method = "GET";
  list.path = "/apis/resource.k8s.io/v1/deviceclasses";
  list.accept = "application/json";
  list.query.emplace("resourceVersion", std::to_string(target));
  list.query.emplace("resourceVersionMatch", "Exact");
  const auto start = std::chrono::steady_clock::now();
  RecordingWriter listed;
  server.Handle(list, listed);
  writer.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));
  EXPECT_EQ(listed.code, 200) << listed.body;
  const Json body = Json::parse(listed.body, nullptr, false);
  ASSERT_FALSE(body.is_discarded());
  EXPECT_EQ(body["metadata"]["resourceVersion"], std::to_string(target));
  ASSERT_EQ(body["items"].size(), 1u);
  EXPECT_EQ(body["items"][0]["metadata"]["name"], "late.example.com");
  server.Stop();
}

INSTANTIATE_TEST_SUITE_P(Golden, ScenarioTest,
                         testing::ValuesIn(ScenarioFiles()),
                         [](const testing::TestParamInfo<fs::path>& info) {
                           std::string name = info.param.stem().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace dralloc::apiserver
