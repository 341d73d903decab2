#include "encoding/yaml_writer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "encoding/document_reader.h"

namespace dralloc::encoding {
namespace {

using Json = nlohmann::ordered_json;

// Reads `yaml` back with ReadDocuments and checks that it gives `expected`.
::testing::AssertionResult RoundTrips(const Json& expected,
                                      const std::string& yaml) {
  StatusOr<std::vector<Document>> documents = ReadDocuments(yaml, "out.yaml");
  if (!documents.ok()) {
    return ::testing::AssertionFailure() << documents.status() << "\nyaml:\n"
                                         << yaml;
  }
  if (documents->size() != 1) {
    // Only null reads back as no document.
    if (documents->empty() && expected.is_null()) {
      return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure()
           << documents->size() << " documents\nyaml:\n"
           << yaml;
  }
  const Json actual = Json::parse((*documents)[0].json);
  if (actual != expected) {
    return ::testing::AssertionFailure()
           << "expected " << expected.dump() << "\n  actual " << actual.dump()
           << "\nyaml:\n"
           << yaml;
  }
  return ::testing::AssertionSuccess();
}

TEST(ToYamlTest, BlockStyle) {
  const Json value = Json::parse(R"({
    "apiVersion": "resource.k8s.io/v1beta1",
    "kind": "ResourceClaim",
    "metadata": {"name": "gpu", "labels": {"app": "x"}},
    "spec": {"devices": {"requests": [
      {"name": "r0", "count": 2, "adminAccess": false, "selectors": []},
      {"name": "r1", "config": {}, "x": null}
    ]}},
    "list": [[1, 2], ["a"]]
  })");
  EXPECT_EQ(ToYaml(value),
            "apiVersion: resource.k8s.io/v1beta1\n"
            "kind: ResourceClaim\n"
            "metadata:\n"
            "  name: gpu\n"
            "  labels:\n"
            "    app: x\n"
            "spec:\n"
            "  devices:\n"
            "    requests:\n"
            "    - name: r0\n"
            "      count: 2\n"
            "      adminAccess: false\n"
            "      selectors: []\n"
            "    - name: r1\n"
            "      config: {}\n"
            "      x: null\n"
            "list:\n"
            "- - 1\n"
            "  - 2\n"
            "- - a\n");
  EXPECT_TRUE(RoundTrips(value, ToYaml(value)));
}

TEST(ToYamlTest, KeepsKeyOrder) {
  Json value = Json::object();
  value["z"] = 1;
  value["a"] = 2;
  value["m"] = 3;
  EXPECT_EQ(ToYaml(value), "z: 1\na: 2\nm: 3\n");
}

TEST(ToYamlTest, RootValues) {
  EXPECT_EQ(ToYaml(Json::object()), "{}\n");
  EXPECT_EQ(ToYaml(Json::array()), "[]\n");
  EXPECT_EQ(ToYaml(Json("text")), "text\n");
  EXPECT_EQ(ToYaml(Json(5)), "5\n");
  EXPECT_EQ(ToYaml(Json(true)), "true\n");
  EXPECT_EQ(ToYaml(Json(nullptr)), "null\n");
  EXPECT_EQ(ToYaml(Json(-9223372036854775807LL - 1)), "-9223372036854775808\n");
}

TEST(ToYamlTest, NumbersAreWrittenPlainly) {
  EXPECT_EQ(ToYaml(Json::parse(R"({"i": -3, "u": 18446744073709551615,
                                  "f": 1.5})")),
            "i: -3\nu: 18446744073709551615\nf: 1.5\n");
}

TEST(ToYamlTest, OrdinaryStringsArePlain) {
  for (std::string_view s :
       {"hello",     "hello world",  "foo-bar",      "1Gi",
        "100m",      "2Ki",          "v1.2.3-rc1",   "example.com/gpu",
        "a:b",       "http://x/y#z", "x-",           "a'b",
        "a\"b",      "h\xC3\xA9llo", "\xE2\x98\x83", "Nullable",
        "yesterday", "ontario",      "_x",           "a,b",
        "a]",        "trueish",      "nan",          "inf",
        "e3"}) {
    Json value = {{"k", s}};
    EXPECT_EQ(ToYaml(value), "k: " + std::string(s) + "\n") << s;
    EXPECT_TRUE(RoundTrips(value, ToYaml(value)));
  }
}

TEST(ToYamlTest, AmbiguousStringsAreQuoted) {
  for (std::string_view s : {"",
                             "true",
                             "True",
                             "TRUE",
                             "false",
                             "yes",
                             "Yes",
                             "no",
                             "NO",
                             "on",
                             "On",
                             "off",
                             "y",
                             "Y",
                             "n",
                             "N",
                             "null",
                             "Null",
                             "NULL",
                             "~",
                             "123",
                             "-5",
                             "+5",
                             "0",
                             "0123",
                             "0x1F",
                             "0o17",
                             "0b101",
                             "1_000",
                             "1.5",
                             "1.10",
                             "1e3",
                             "1E+3",
                             "-1.5e-3",
                             ".5",
                             "5.",
                             ".inf",
                             "-.inf",
                             "+.INF",
                             ".nan",
                             ".NaN",
                             "12:30",
                             "1:20:30.5",
                             "2001-12-14",
                             "2001-12-14t21:59:43.10-05:00",
                             "2001-12-14 21:59:43.10 -5",
                             "-",
                             "+",
                             ".",
                             "<<",
                             "=",
                             " leading",
                             "trailing ",
                             "\ttab",
                             "tab\t",
                             "- item",
                             "-item",
                             "? q",
                             ":colon",
                             "key:",
                             "a: b",
                             "a #b",
                             "#c",
                             "[x]",
                             "{x}",
                             ",x",
                             "&anchor",
                             "*alias",
                             "!tag",
                             "|lit",
                             ">fold",
                             "'single",
                             "\"double",
                             "%percent",
                             "@at",
                             "`tick",
                             "---",
                             "...",
                             "--- x"}) {
    Json value = {{"k", s}};
    const std::string yaml = ToYaml(value);
    EXPECT_NE(yaml, "k: " + std::string(s) + "\n") << s;
    EXPECT_TRUE(yaml.rfind("k: \"", 0) == 0 || yaml.rfind("k: '", 0) == 0)
        << yaml;
    EXPECT_TRUE(RoundTrips(value, yaml));
    // As keys too.
    Json keyed = Json::object();
    keyed[std::string(s)] = 1;
    EXPECT_TRUE(RoundTrips(keyed, ToYaml(keyed)));
  }
}

TEST(ToYamlTest, MultiLineStrings) {
  EXPECT_EQ(ToYaml(Json{{"script", "line 1\nline 2\n"}}),
            "script: |\n  line 1\n  line 2\n");
  EXPECT_EQ(ToYaml(Json{{"script", "a\nb"}}), "script: |-\n  a\n  b\n");
  for (std::string_view s :
       {"a\n", "a\n\n", "a\n\n\n", "\n", "\n\n", "\na", " a\nb", "a\n b",
        "a \nb", "a\n ", "a\r\nb", "a\n\tb", "\ta\nb", "  indented\nx",
        "true\nfalse", "# not a comment\nx", "x\n---\ny", "x\n...\ny",
        "- a\n- b"}) {
    const Json value = {{"k", s}, {"list", {s, s}}};
    EXPECT_TRUE(RoundTrips(value, ToYaml(value)));
  }
}

TEST(ToYamlTest, LongStringsAreNotFolded) {
  std::string long_text;
  for (int i = 0; i < 500; ++i) long_text += "word" + std::to_string(i) + " ";
  long_text += "end";
  const Json value = {{"k", long_text}};
  EXPECT_EQ(ToYaml(value), "k: " + long_text + "\n");
  const std::string long_key(300, 'k');
  const Json keyed = {{long_key, "v"}, {"k", long_text}};
  EXPECT_TRUE(RoundTrips(keyed, ToYaml(keyed)));
}

TEST(ToYamlTest, InvalidUtf8IsReplaced) {
  const Json value = {{"k",
                       "a\xFF"
                       "b\xC3"},
                      {"\xED\xA0\x80", 1}};
  const std::string yaml = ToYaml(value);
  const Json expected = {{"k",
                          "a\xEF\xBF\xBD"
                          "b\xEF\xBF\xBD"},
                         {"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD", 1}};
  EXPECT_TRUE(RoundTrips(expected, yaml));
}

TEST(ToYamlTest, DeepValuesDoNotOverflowTheStack) {
  Json value = Json::array();
  for (int i = 0; i < 1000; ++i) value = Json::array({std::move(value)});
  const std::string yaml = ToYaml(value);
  ASSERT_FALSE(yaml.empty());
  EXPECT_EQ(yaml.back(), '\n');
  ReadLimits limits;
  limits.max_depth = 5000;
  StatusOr<std::vector<Document>> documents =
      ReadDocuments(yaml, "deep", limits);
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_EQ(documents->size(), 1u);
  EXPECT_EQ((*documents)[0].json, value.dump());
}

TEST(ToYamlTest, RoundTripsTrickyValues) {
  const std::vector<Json> values = {
      Json::parse(R"({"a": [{"b": [{"c": []}, {}], "d": [[[]]]}, [], {}]})"),
      Json::parse(R"([[{"x": 1, "y": [true, false, null]}], [[], [{}]]])"),
      Json::parse(R"({"": "", " ": " ", "null": null, "~": "~"})"),
      Json::parse(R"({"unicode": "h\u00e9llo \u2603 \ud83d\ude00 \u4e2d\u6587",
                      "controls": "\u0000\u0001\u001f\u007f\u0085\u00a0",
                      "separators": "\u2028\u2029\ufeff",
                      "escapes": "quote \" backslash \\ slash /"})"),
      Json::parse(R"({"numbers": [0, -1, 9223372036854775807,
                                  -9223372036854775808]})"),
      Json::parse(R"({"strings": ["0", "-0", "+1", "1.0", "0.0.0.0",
                                  "10.0.0.1", "1Gi", "500m", "0x", "0o",
                                  "e", "E", "1e", ".e", "1:2", "::1"]})"),
      Json::parse(R"({"a": "x\ny", "b": ["p\nq\n", {"c": "\n"}]})"),
      Json::parse(R"({"nested": {"k": {"k": {"k": {"k": "v"}}}}})"),
      Json("just a string"),
      Json("multi\nline\n"),
      Json::parse(R"([1, "1", true, "true", null, "null"])"),
  };
  for (const Json& value : values) {
    EXPECT_TRUE(RoundTrips(value, ToYaml(value)));
  }
}

TEST(ToYamlTest, RoundTripsRandomStrings) {
  const std::vector<std::string> pieces = {
      " ",    "\n",       "\t",   "\r",   ":", "#", "-",
      "?",    "'",        "\"",   "\\",   "a", "b", "1",
      ".",    ",",        "[",    "]",    "{", "}", "&",
      "*",    "!",        "|",    ">",    "%", "@", "`",
      "~",    "\xC3\xA9", "\x01", "\x7f", "e", "0", "\xE2\x80\xA8",
      "true", "null",     "---",  "x"};
  std::mt19937 random(42);
  for (int round = 0; round < 1500; ++round) {
    std::string s;
    const int length = random() % 8;
    for (int i = 0; i < length; ++i) s += pieces[random() % pieces.size()];
    const Json value = {{"v", s}, {s, "k"}, {"l", {s}}};
    EXPECT_TRUE(RoundTrips(value, ToYaml(value)));
    const Json root(s);
    EXPECT_TRUE(RoundTrips(root, ToYaml(root)));
  }
}

TEST(ToYamlStreamTest, SeparatesDocuments) {
  EXPECT_EQ(ToYamlStream({}), "");
  EXPECT_EQ(ToYamlStream({Json{{"a", 1}}}), "a: 1\n");
  const std::vector<Json> values = {Json{{"a", 1}}, Json{{"b", "x\n"}},
                                    Json::array({1, 2}), Json("s")};
  const std::string yaml = ToYamlStream(values);
  EXPECT_EQ(yaml.rfind("a: 1\n---\nb: |\n  x\n---\n- 1\n- 2\n---\n", 0), 0u)
      << yaml;
  StatusOr<std::vector<Document>> documents = ReadDocuments(yaml, "s");
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_EQ(documents->size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(Json::parse((*documents)[i].json), values[i]);
  }
}

}  // namespace
}  // namespace dralloc::encoding
