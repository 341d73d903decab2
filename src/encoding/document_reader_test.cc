#include "encoding/document_reader.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace dralloc::encoding {
namespace {

// Hang guard, not a speed target (those live in bench/): inputs that would
// blow up quadratically take minutes, while these finish in well under a
// second optimized and a few seconds under ASan on a loaded 2-core machine.
constexpr auto kNoBlowUp = std::chrono::seconds(60);

::testing::AssertionResult HasSubstr(std::string_view text,
                                     std::string_view part) {
  if (text.find(part) != std::string_view::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "\"" << text << "\" does not contain \"" << part << "\"";
}

::testing::AssertionResult StartsWith(std::string_view text,
                                      std::string_view prefix) {
  if (text.substr(0, prefix.size()) == prefix) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "\"" << text << "\" does not start with \"" << prefix << "\"";
}

// JSON texts of the documents of `input`; fails the test on error.
std::vector<std::string> Jsons(std::string_view input,
                               const ReadLimits& limits = {}) {
  StatusOr<std::vector<Document>> documents =
      ReadDocuments(input, "test.yaml", limits);
  EXPECT_TRUE(documents.ok())
      << documents.status() << "\ninput: " << input.substr(0, 200);
  std::vector<std::string> out;
  if (!documents.ok()) return out;
  for (const Document& document : *documents) out.push_back(document.json);
  return out;
}

// The single document of `input` as JSON text ("<error>" if not exactly one).
std::string OneJson(std::string_view input) {
  std::vector<std::string> jsons = Jsons(input);
  EXPECT_EQ(jsons.size(), 1u) << "input: " << input;
  return jsons.size() == 1 ? jsons[0] : "<error>";
}

Status ReadError(std::string_view input, const ReadLimits& limits = {}) {
  StatusOr<std::vector<Document>> documents =
      ReadDocuments(input, "test.yaml", limits);
  if (documents.ok()) return OkStatus();
  return documents.status();
}

std::string Nested(std::string_view open, std::string_view middle,
                   std::string_view close, int depth) {
  std::string out;
  out.reserve((open.size() + close.size()) * depth + middle.size());
  for (int i = 0; i < depth; ++i) out.append(open);
  out.append(middle);
  for (int i = 0; i < depth; ++i) out.append(close);
  return out;
}

// ---------------------------------------------------------------------------
// JSON input.

TEST(ReadDocumentsJsonTest, SingleObject) {
  StatusOr<std::vector<Document>> documents = ReadDocuments(
      "{\"a\": 1,\n \"b\": [true, null, \"x y\"]}\n", "claim.json");
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_EQ(documents->size(), 1u);
  const Document& document = (*documents)[0];
  EXPECT_EQ(document.json, R"({"a":1,"b":[true,null,"x y"]})");
  EXPECT_EQ(document.source, "claim.json");
  EXPECT_EQ(document.index, 0);
  EXPECT_EQ(document.line, 1);
}

TEST(ReadDocumentsJsonTest, Stream) {
  StatusOr<std::vector<Document>> documents = ReadDocuments(
      "\n{\"a\":1}\n{\"b\":2} [1,2]\n\n  {\"c\" : 3}null\"s\" 7", "s.json");
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_EQ(documents->size(), 6u);
  const std::vector<std::string> jsons = {R"({"a":1})", R"({"b":2})", "[1,2]",
                                          R"({"c":3})", R"("s")",     "7"};
  const std::vector<int> lines = {2, 3, 3, 5, 5, 5};
  for (size_t i = 0; i < jsons.size(); ++i) {
    EXPECT_EQ((*documents)[i].json, jsons[i]);
    EXPECT_EQ((*documents)[i].index, static_cast<int>(i));
    EXPECT_EQ((*documents)[i].line, lines[i]) << i;
  }
}

TEST(ReadDocumentsJsonTest, ByteOrderMark) {
  EXPECT_EQ(OneJson("\xEF\xBB\xBF {\"a\": \"\xC3\xA9\"}"),
            "{\"a\":\"\xC3\xA9\"}");
  EXPECT_EQ(OneJson("\xEF\xBB\xBF"
                    "a: 1\n"),
            R"({"a":1})");
}

TEST(ReadDocumentsJsonTest, KeepsExactText) {
  EXPECT_EQ(OneJson(R"({"a": 1.50, "b": 1e3, "c": "\u00e9\/", "d": -0})"),
            R"({"a":1.50,"b":1e3,"c":"\u00e9\/","d":-0})");
  EXPECT_EQ(OneJson(R"([ "a b" , { "k" : [ ] } ])"), R"(["a b",{"k":[]}])");
}

TEST(ReadDocumentsJsonTest, ErrorsNameTheDocument) {
  struct Case {
    std::string input;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"{\"a\": 1", "test.yaml: document 1: json: "},
      {"[1, 2", "test.yaml: document 1: json: "},
      {"{\"a\": \"x", "test.yaml: document 1: json: "},
      {"{a: 1}", "test.yaml: document 1: json: "},
      {"[1, 2,]", "test.yaml: document 1: json: "},
      {"{\"a\":1}\n{\"b\":", "test.yaml: document 2: json: "},
      {"{\"a\":1} ]", "test.yaml: document 2: json: "},
      {"{\"a\":1}\nb: 2\n", "test.yaml: document 2: json: "},
      {"[\"\xFF\"]", "test.yaml: document 1: json: "},
      {"[\"a\x01\"]", "test.yaml: document 1: json: "},
      {std::string("[\"a\0\"]", 5), "test.yaml: document 1: json: "},
      {"[123456789012345678901234567890]", "test.yaml: document 1: json: "},
      {"[1}", "test.yaml: document 1: json: "},
  };
  for (const Case& c : cases) {
    const Status status = ReadError(c.input);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << c.input;
    EXPECT_TRUE(StartsWith(status.message(), c.message)) << c.input;
  }
}

// ---------------------------------------------------------------------------
// YAML documents.

TEST(ReadDocumentsYamlTest, MultiDocumentStream) {
  const std::string input =
      "# leading comment\n"  // line 1
      "---\n"
      "# only a comment\n"
      "---\n"
      "a: 1\n"  // line 5
      "---\n"
      "---\n"
      "null\n"
      "--- ~\n"
      "--- # comment\n"  // line 10
      "b: [x, y]\n"
      "...\n"
      "---\n"
      "- c  # trailing comment\n"
      "\n";
  StatusOr<std::vector<Document>> documents = ReadDocuments(input, "m.yaml");
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_EQ(documents->size(), 3u);
  EXPECT_EQ((*documents)[0].json, R"({"a":1})");
  EXPECT_EQ((*documents)[1].json, R"({"b":["x","y"]})");
  EXPECT_EQ((*documents)[2].json, R"(["c"])");
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ((*documents)[i].index, i);
    EXPECT_EQ((*documents)[i].source, "m.yaml");
  }
  EXPECT_EQ((*documents)[0].line, 4);
  EXPECT_EQ((*documents)[1].line, 10);
  EXPECT_EQ((*documents)[2].line, 13);
}

TEST(ReadDocumentsYamlTest, ImplicitFirstDocumentLine) {
  StatusOr<std::vector<Document>> documents =
      ReadDocuments("# c\n\nkind: A\n---\nkind: B\n", "x");
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_EQ(documents->size(), 2u);
  EXPECT_EQ((*documents)[0].line, 3);
  EXPECT_EQ((*documents)[1].line, 4);
}

TEST(ReadDocumentsYamlTest, EmptyInputs) {
  for (std::string_view input :
       {"", "   \n\n", "# just a comment\n", "---\n", "---\n...\n",
        "--- null\n--- ~\n---\n", "\xEF\xBB\xBF", "\n  # indented\n"}) {
    EXPECT_TRUE(Jsons(input).empty()) << input;
  }
}

TEST(ReadDocumentsYamlTest, BlockAndFlowStructure) {
  EXPECT_EQ(OneJson("apiVersion: resource.k8s.io/v1beta1\n"
                    "kind: ResourceClaim\n"
                    "metadata:\n"
                    "  name: gpu  # comment\n"
                    "  labels: {app: x, tier: \"1\"}\n"
                    "spec:\n"
                    "  devices:\n"
                    "    requests:\n"
                    "    - name: r0\n"
                    "      count: 2\n"
                    "    - {name: r1, selectors: [a, 'b c', []]}\n"
                    "  empty: {}\n"),
            R"({"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceClaim",)"
            R"("metadata":{"name":"gpu","labels":{"app":"x","tier":"1"}},)"
            R"("spec":{"devices":{"requests":[{"name":"r0","count":2},)"
            R"({"name":"r1","selectors":["a","b c",[]]}]},"empty":{}}})");
}

struct ScalarCase {
  std::string yaml;  // the value in "v: <yaml>"
  std::string json;  // the expected JSON of v
};

TEST(ReadDocumentsYamlTest, ScalarResolution) {
  const std::vector<ScalarCase> cases = {
      // Null.
      {"", "null"},
      {"null", "null"},
      {"Null", "null"},
      {"NULL", "null"},
      {"~", "null"},
      {"nUll", R"("nUll")"},
      {"nil", R"("nil")"},
      // Booleans.
      {"true", "true"},
      {"True", "true"},
      {"TRUE", "true"},
      {"false", "false"},
      {"False", "false"},
      {"FALSE", "false"},
      {"tRUE", R"("tRUE")"},
      {"yes", R"("yes")"},
      {"no", R"("no")"},
      {"on", R"("on")"},
      {"off", R"("off")"},
      {"y", R"("y")"},
      {"n", R"("n")"},
      {"Yes", R"("Yes")"},
      // Integers.
      {"0", "0"},
      {"7", "7"},
      {"123", "123"},
      {"-5", "-5"},
      {"+5", "5"},
      {"-0", "0"},
      {"+0", "0"},
      {"9223372036854775807", "9223372036854775807"},
      {"-9223372036854775808", "-9223372036854775808"},
      {"9223372036854775808", R"("9223372036854775808")"},
      {"-9223372036854775809", R"("-9223372036854775809")"},
      {"123456789012345678901234", R"("123456789012345678901234")"},
      {"0123", R"("0123")"},
      {"00", R"("00")"},
      {"-01", R"("-01")"},
      {"0x1F", R"("0x1F")"},
      {"0o17", R"("0o17")"},
      {"0b101", R"("0b101")"},
      {"1_000", R"("1_000")"},
      {"12:30", R"("12:30")"},
      {"+", R"("+")"},
      {"1-2", R"("1-2")"},
      // Floats and other text stay strings with the exact text.
      {"1.5", R"("1.5")"},
      {"1.10", R"("1.10")"},
      {"1e3", R"("1e3")"},
      {"-1.5E-3", R"("-1.5E-3")"},
      {".inf", R"(".inf")"},
      {"-.Inf", R"("-.Inf")"},
      {".nan", R"(".nan")"},
      {"2001-12-14", R"("2001-12-14")"},
      {"1Gi", R"("1Gi")"},
      {"hello world", R"("hello world")"},
      {"a:b", R"("a:b")"},
      {"http://x/y#z", R"("http://x/y#z")"},
      {"multi\n  line", R"("multi line")"},
      // Quoted and block scalars are strings.
      {"\"123\"", R"("123")"},
      {"'true'", R"("true")"},
      {"\"null\"", R"("null")"},
      {"''", R"("")"},
      {"\"\"", R"("")"},
      {"'~'", R"("~")"},
      {"|\n  123\n", R"("123\n")"},
      {"|-\n  true\n", R"("true")"},
      {">\n  a\n  b\n", R"("a b\n")"},
      {"|+\n  a\n", R"("a\n\n")"},
      {"\"tab\\there\"", R"("tab\there")"},
      {"'it''s'", R"("it's")"},
  };
  for (const ScalarCase& c : cases) {
    EXPECT_EQ(OneJson("v: " + c.yaml + "\n"), "{\"v\":" + c.json + "}")
        << "v: " << c.yaml;
  }
}

TEST(ReadDocumentsYamlTest, RootScalars) {
  EXPECT_EQ(OneJson("hello\n"), R"("hello")");
  EXPECT_EQ(OneJson("42"), "42");
  EXPECT_EQ(OneJson("--- true\n"), "true");
  EXPECT_EQ(OneJson("\"\"\n"), R"("")");
}

TEST(ReadDocumentsYamlTest, Tags) {
  const std::vector<ScalarCase> cases = {
      {"!!str 123", R"("123")"},
      {"!!str true", R"("true")"},
      {"!!str", R"("")"},
      {"!!str ~", R"("~")"},
      {"!<tag:yaml.org,2002:str> 5", R"("5")"},
      {"! 123", R"("123")"},
      {"!!int 42", "42"},
      {"!!int \"-42\"", "-42"},
      {"!!int +3", "3"},
      {"!!bool true", "true"},
      {"!!bool 'False'", "false"},
      {"!!null ~", "null"},
      {"!!null", "null"},
      {"!!null \"\"", "null"},
      {"!!float 1.5", R"("1.5")"},
      {"!!float 1", R"("1")"},
      {"!!float .inf", R"(".inf")"},
      {"!foo 123", "123"},
      {"!foo '123'", R"("123")"},
      {"!!binary aGVsbG8=", R"("aGVsbG8=")"},
      {"!!timestamp 2001-12-14", R"("2001-12-14")"},
      {"!!map {a: 1}", R"({"a":1})"},
      {"!!seq [1]", "[1]"},
      {"!custom [1, !x 2]", "[1,2]"},
  };
  for (const ScalarCase& c : cases) {
    EXPECT_EQ(OneJson("v: " + c.yaml + "\n"), "{\"v\":" + c.json + "}")
        << "v: " << c.yaml;
  }
  EXPECT_EQ(OneJson("%TAG !e! tag:yaml.org,2002:\n---\nv: !e!str 1\n"),
            R"({"v":"1"})");
}

TEST(ReadDocumentsYamlTest, UnresolvableTags) {
  for (std::string_view input :
       {"v: !!int abc\n", "v: !!int 1.5\n", "v: !!int 0x1F\n",
        "v: !!int 99999999999999999999\n", "v: !!bool yes\n", "v: !!null x\n",
        "v: !!int\n"}) {
    const Status status = ReadError(input);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << input;
    EXPECT_TRUE(StartsWith(status.message(), "test.yaml: line 1 column 4: "))
        << input;
    EXPECT_TRUE(HasSubstr(status.message(), "cannot resolve")) << input;
  }
}

TEST(ReadDocumentsYamlTest, Keys) {
  const std::vector<ScalarCase> cases = {
      {"1: a", R"({"1":"a"})"},
      {"+1: a", R"({"+1":"a"})"},
      {"~: a", R"({"null":"a"})"},
      {"null: a", R"({"null":"a"})"},
      {"? \n: a", R"({"null":"a"})"},
      {"true: a", R"({"true":"a"})"},
      {"True: a", R"({"True":"a"})"},
      {"1.5: a", R"({"1.5":"a"})"},
      {"\"x\\ny\": a", R"({"x\ny":"a"})"},
      {"'': a", R"({"":"a"})"},
      {"!!str 1: a", R"({"1":"a"})"},
      {"? |\n  block\n: a", R"({"block\n":"a"})"},
      {"a: 1\na: 2", R"({"a":1,"a":2})"},
      {"<<: {a: 1}\nb: 2", R"({"<<":{"a":1},"b":2})"},
  };
  for (const ScalarCase& c : cases) {
    EXPECT_EQ(OneJson(c.yaml + "\n"), c.json) << c.yaml;
  }
  for (std::string_view input :
       {"? [a]\n: b\n", "? {a: 1}\n: b\n", "x:\n  [a]: b\n", "x: {[a]: b}\n",
        "x: {{a: 1}: b}\n"}) {
    const Status status = ReadError(input);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << input;
    EXPECT_TRUE(HasSubstr(status.message(), "mapping keys must be scalars"))
        << input;
  }
}

TEST(ReadDocumentsYamlTest, Aliases) {
  const std::vector<ScalarCase> cases = {
      {"a: &x {b: 1}\nc: *x", R"({"a":{"b":1},"c":{"b":1}})"},
      {"a: &x [1, [2]]\nc: [*x, *x]", R"({"a":[1,[2]],"c":[[1,[2]],[1,[2]]]})"},
      {"a: &n 5\nb: *n", R"({"a":5,"b":5})"},
      {"a: &s '5'\nb: *s", R"({"a":"5","b":"5"})"},
      {"a: &e\nb: *e", R"({"a":null,"b":null})"},
      {"a: &k foo\n*k : bar", R"({"a":"foo","foo":"bar"})"},
      {"&k 5: x\ny: *k", R"({"5":"x","y":5})"},
      {"a: &t true\n*t : 1", R"({"a":true,"true":1})"},
      {"a: &z ~\n*z : 1", R"({"a":null,"null":1})"},
      {"a: &x 1\nb: &x 2\nc: *x", R"({"a":1,"b":2,"c":2})"},
      {"- &a [1]\n- &a [*a]\n- *a", "[[1],[[1]],[[1]]]"},
      {"base: &b\n  k: v\nuse:\n  <<: *b\n",
       R"({"base":{"k":"v"},"use":{"<<":{"k":"v"}}})"},
  };
  for (const ScalarCase& c : cases) {
    EXPECT_EQ(OneJson(c.yaml + "\n"), c.json) << c.yaml;
  }
}

TEST(ReadDocumentsYamlTest, AliasErrors) {
  struct Case {
    std::string input;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"a: *nope\n", "test.yaml: line 1 column 4: yaml: unknown anchor 'nope'"},
      {"a: &x [*x]\n", "unknown anchor 'x'"},
      {"a: &x 1\n---\nb: *x\n", "test.yaml: line 3 column 4: yaml: unknown"},
      {"a: &x [1]\n*x : 2\n", "mapping keys must be scalars"},
  };
  for (const Case& c : cases) {
    const Status status = ReadError(c.input);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << c.input;
    EXPECT_TRUE(HasSubstr(status.message(), c.message)) << c.input;
  }
}

TEST(ReadDocumentsYamlTest, StringEscaping) {
  const std::string json = OneJson(
      "a: \"q\\\"b\\\\c\\x01\\x1f\\t\\n\\r\\b\\f\\0/\\x7f\"\n"
      "b: \"\\u00e9 \\u2603 \\U0001F600\"\n"
      "c: h\xC3\xA9llo \xE2\x98\x83 \xF0\x9F\x98\x80\n");
  EXPECT_EQ(json,
            "{\"a\":\"q\\\"b\\\\c\\u0001\\u001f\\t\\n\\r\\b\\f\\u0000/\x7f\","
            "\"b\":\"\xC3\xA9 \xE2\x98\x83 \xF0\x9F\x98\x80\","
            "\"c\":\"h\xC3\xA9llo \xE2\x98\x83 \xF0\x9F\x98\x80\"}");
  const nlohmann::json parsed = nlohmann::json::parse(json);
  EXPECT_EQ(parsed["a"].get<std::string>(),
            std::string("q\"b\\c\x01\x1f\t\n\r\b\f\0/\x7f", 15));
}

TEST(ReadDocumentsYamlTest, SyntaxErrors) {
  struct Case {
    std::string input;
    std::string message;  // expected prefix
  };
  const std::vector<Case> cases = {
      {"a: [1, 2\n", "test.yaml: line 2 column 1: yaml: "},
      {"a: \"abc\n", "test.yaml: line 2 column 1: yaml: "},
      {"a:\n  b: {c\n", "test.yaml: line "},
      {"a:\n  b: 1\n c: 2\n", "test.yaml: line 3 column 2: yaml: "},
      {"a:\n  b: 1\n    c: 2\n", "test.yaml: line 3 column 6: yaml: "},
      {"a:\n\tb: 1\n", "test.yaml: line 2 column 1: yaml: "},
      {"- a\nb: 1\n", "test.yaml: line 2 column 1: yaml: "},
      {"a: b: c\n", "test.yaml: line 1 column 5: yaml: "},
      {"a: 'x\n", "test.yaml: line "},
      {"a: |\n  x\n y: 1\n", "test.yaml: line "},
      {"%YAML 2.0\n---\na: 1\n", "test.yaml: line "},
      {"a: !<x\n", "test.yaml: line "},
      {"a: &\n", "test.yaml: line "},
      {"@a\n", "test.yaml: line 1 column 1: yaml: "},
      {"a: \xFF\xFE\n", "test.yaml: line 1 column 4: yaml: "},
      {"a: b\n\xC3\x28\n", "test.yaml: line 2 column 2: yaml: "},
      {"a: \xE2\x82\n", "test.yaml: line 1 column 6: yaml: "},
      {std::string("a: b\0c\n", 7), "test.yaml: line 1 column 5: yaml: "},
      {std::string("\0\0\0\0", 4), "test.yaml: line 1 column 1: yaml: "},
      {"\xFF\xFE"
       "a\0:\0 \0"
       "1\0",
       "test.yaml: line 1 column 1: yaml: "},
      {"a: \x01\n", "test.yaml: line 1 column 4: yaml: "},
  };
  for (const Case& c : cases) {
    const Status status = ReadError(c.input);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << c.input;
    EXPECT_TRUE(StartsWith(status.message(), c.message)) << c.input;
  }
  EXPECT_EQ(ReadError("a: \xFF\n").message(),
            "test.yaml: line 1 column 4: yaml: invalid leading UTF-8 octet "
            "(byte 0xFF)");
}

TEST(ReadDocumentsYamlTest, RandomBinaryGarbageIsAnError) {
  std::mt19937 random(12345);
  for (int round = 0; round < 200; ++round) {
    std::string input(1 + random() % 2000, '\0');
    for (char& c : input) c = static_cast<char>(random() & 0xFF);
    if (round % 2 == 1) input[0] = '{';  // take the JSON path too
    const Status status = ReadError(input);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << round;
    EXPECT_TRUE(StartsWith(status.message(), "test.yaml: ")) << round;
  }
}

TEST(ReadDocumentsYamlTest, RandomMutationsNeverCrash) {
  const std::string base =
      "a: &x {b: [1, 2, {c: d}], e: \"f\\n\"}\n"
      "g: *x\n"
      "h: |\n  lit\n---\n[1, {k: v}]\n";
  const std::string alphabet = "[]{}:,-?&*!|>'\"#%@ \n\t\\ax1";
  std::mt19937 random(7);
  for (int round = 0; round < 2000; ++round) {
    std::string input = base;
    const int edits = 1 + random() % 4;
    for (int i = 0; i < edits; ++i) {
      const size_t pos = random() % input.size();
      switch (random() % 3) {
        case 0:
          input[pos] = alphabet[random() % alphabet.size()];
          break;
        case 1:
          input.insert(pos, 1, alphabet[random() % alphabet.size()]);
          break;
        default:
          input.erase(pos, 1);
          break;
      }
    }
    StatusOr<std::vector<Document>> documents = ReadDocuments(input, "m");
    if (!documents.ok()) continue;
    for (const Document& document : *documents) {
      EXPECT_TRUE(nlohmann::json::accept(document.json))
          << document.json << "\ninput: " << input;
    }
  }
}

// ---------------------------------------------------------------------------
// Limits.

TEST(ReadDocumentsLimitsTest, DepthLimitIsExact) {
  // The default limit is 256 levels.
  for (int depth : {255, 256}) {
    EXPECT_EQ(Jsons(Nested("[", "", "]", depth)).size(), 1u) << depth;
    EXPECT_EQ(Jsons(Nested("[", "1", "]", depth)).size(), 1u) << depth;
    EXPECT_EQ(Jsons(Nested("{\"a\":", "{}", "}", depth - 1)).size(), 1u);
    EXPECT_EQ(Jsons("a: " + Nested("[", "x", "]", depth - 1)).size(), 1u);
    EXPECT_EQ(Jsons(Nested("- ", "x", "", depth)).size(), 1u) << depth;
  }
  const std::vector<std::string> too_deep = {
      Nested("[", "", "]", 257),         Nested("[", "1", "]", 257),
      Nested("{\"a\":", "{}", "}", 256), "a: " + Nested("[", "x", "]", 256),
      Nested("- ", "x", "", 257),
  };
  for (const std::string& input : too_deep) {
    const Status status = ReadError(input);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(HasSubstr(status.message(), "nesting deeper than 256 levels"));
  }
}

TEST(ReadDocumentsLimitsTest, HundredThousandDeepNesting) {
  constexpr int kDepth = 100000;
  const std::vector<std::string> inputs = {
      Nested("[", "", "]", kDepth),
      Nested("[", "", "", kDepth),
      Nested("{\"a\":", "1", "}", kDepth),
      Nested("{\"a\":", "", "", kDepth),
      "a: " + Nested("[", "", "]", kDepth),
      "a: " + Nested("{a: ", "1", "}", kDepth),
      Nested("- ", "x", "", kDepth),
      "a: " + Nested("[", "", "", kDepth),
  };
  for (const std::string& input : inputs) {
    const auto start = std::chrono::steady_clock::now();
    const Status status = ReadError(input);
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument)
        << input.substr(0, 20);
    EXPECT_TRUE(HasSubstr(status.message(), "nesting deeper than 256 levels"))
        << input.substr(0, 20);
    EXPECT_LT(elapsed, kNoBlowUp) << input.substr(0, 20);
  }
}

TEST(ReadDocumentsLimitsTest, SmallMaxDepthAndAliases) {
  ReadLimits limits;
  limits.max_depth = 3;
  EXPECT_EQ(Jsons("a: &x [[1]]\nb: *x\n", limits).size(), 1u);
  const Status status = ReadError("a: &x [[1]]\nb: [*x]\n", limits);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "test.yaml: line 2 column 5: nesting deeper than 3 levels");
  EXPECT_EQ(ReadError("[[[[1]]]]", limits).message(),
            "test.yaml: document 1: json: nesting deeper than 3 levels");
}

TEST(ReadDocumentsLimitsTest, InputTooLarge) {
  ReadLimits limits;
  limits.max_input_bytes = 10;
  EXPECT_EQ(Jsons("a: 1234567", limits).size(), 1u);
  const Status status = ReadError("a: 12345678", limits);
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(),
            "test.yaml: input is 11 bytes, more than the limit of 10 bytes");
}

TEST(ReadDocumentsLimitsTest, DocumentTooLarge) {
  ReadLimits limits;
  limits.max_document_bytes = 16;
  // The JSON {"a":"0123456789"} has 18 bytes.
  Status status = ReadError("x: 1\n---\n\na: \"0123456789\"\n", limits);
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(),
            "test.yaml: document 2 (line 2) is more than the limit of 16 "
            "bytes");
  status = ReadError("{}\n\n{\"a\":\"0123456789\"}", limits);
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(),
            "test.yaml: document 2 (line 3) is more than the limit of 16 "
            "bytes");
  // Whitespace of JSON input does not count; comments of YAML do.
  EXPECT_EQ(Jsons("{\"a\" :    \"01234567\"}", limits).size(), 1u);
  status = ReadError("a:    # a comment that is long\n  b\n", limits);
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
}

TEST(ReadDocumentsLimitsTest, DocumentsNearTheLimit) {
  const ReadLimits limits;
  const size_t limit = limits.max_document_bytes;
  // {"a":"xxx..."} has 8 bytes more than the x's; the YAML source 4 more.
  const std::string fits(limit - 8, 'x');
  const std::string too_big(limit - 7, 'x');
  const std::string comments = "# comment\n# comment\n";
  EXPECT_EQ(Jsons("a: " + fits + "\n").size(), 1u);
  EXPECT_EQ(Jsons("x: 1\n---\na: " + fits + "\n# trailing comment\n---\na: \"" +
                  fits.substr(1) + "\"\n")
                .size(),
            3u);
  EXPECT_EQ(Jsons("{\"a\":\"" + fits + "\"}\n[\"" +
                  std::string(limit - 4, 'x') + "\"]")
                .size(),
            2u);
  // Comments inside a document count towards its source size, those before
  // or after its content do not.
  const std::string roomy(limit - 100, 'x');
  std::string many_comments;
  while (many_comments.size() < (2u << 20)) many_comments += comments;
  EXPECT_EQ(Jsons(many_comments + "a: |-\n  " + roomy + "\n" + many_comments +
                  "---\n" + comments + "a: " + roomy + "\n" + many_comments)
                .size(),
            2u);
  EXPECT_EQ(Jsons(std::string(limit + 1, '\n') + "a: 1\n...\n" +
                  std::string(limit + 1, ' ') + "\n---\nb: 1\n")
                .size(),
            2u);
  for (const std::string& input :
       {"x: 1\n---\na: " + too_big + "\n",
        "x: 1\n---\na: \"" + too_big + "\"\n",
        "x: 1\n---\na: " + too_big + too_big + too_big + "\n",
        "x: 1\n---\na: 1\nb: \"" + too_big + too_big + too_big + "\"\n",
        "x: 1\n---\n" + too_big + too_big + ": 1\n",
        "{\"x\":1}\n{\"a\":\"" + too_big + "\"}"}) {
    const Status status = ReadError(input);
    EXPECT_EQ(status.code(), StatusCode::kResourceExhausted) << status;
    EXPECT_EQ(status.message(),
              "test.yaml: document 2 (line 2) is more than the limit of "
              "3145728 bytes");
  }
}

TEST(ReadDocumentsLimitsTest, FiftyMegabyteString) {
  const std::string big(50u << 20, 'x');
  for (const std::string& input :
       {"a: " + big + "\n", "a: \"" + big + "\"\n", "{\"a\": \"" + big + "\"}",
        "[\"" + big + "\""}) {
    const auto start = std::chrono::steady_clock::now();
    const Status status = ReadError(input);
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(status.code(), StatusCode::kResourceExhausted)
        << status << " " << input.substr(0, 10);
    EXPECT_TRUE(
        HasSubstr(status.message(), "is more than the limit of 3145728 bytes"));
    EXPECT_LT(elapsed, kNoBlowUp);
  }
}

TEST(ReadDocumentsLimitsTest, BillionLaughs) {
  const std::string input =
      "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\","
      "\"lol\"]\n"
      "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
      "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
      "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
      "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
      "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
      "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
      "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
      "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n";
  const auto start = std::chrono::steady_clock::now();
  const Status status = ReadError(input);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted) << status;
  EXPECT_EQ(status.message(),
            "test.yaml: document 1 (line 1) is more than the limit of 3145728 "
            "bytes");
  EXPECT_LT(elapsed, kNoBlowUp);
}

TEST(ReadDocumentsLimitsTest, ManyAliasesOfSmallAnchor) {
  // Quadratic blow-up through many aliases in one flat list.
  std::string input = "a: &a [1,2,3,4,5,6,7,8,9,10]\nb: [";
  for (int i = 0; i < 400000; ++i) input += "*a,";
  input += "*a]\n";
  const Status status = ReadError(input);
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted) << status;
}

TEST(ReadDocumentsLimitsTest, LargeFlatInputsAreFast) {
  std::string yaml = "items:\n";
  std::string json = "{\"items\": [";
  for (int i = 0; i < 100000; ++i) {
    yaml += "- {name: item" + std::to_string(i) + ", count: 1}\n";
    json += (i > 0 ? ", " : "") + std::string("{\"name\": \"item\", \"n\": 1}");
  }
  json += "]}";
  std::string stream;
  for (int i = 0; i < 20000; ++i) stream += "---\nkind: A\nv: 1\n";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Jsons(yaml).size(), 1u);
  EXPECT_EQ(Jsons(json).size(), 1u);
  EXPECT_EQ(Jsons(stream).size(), 20000u);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, kNoBlowUp);
}

}  // namespace
}  // namespace dralloc::encoding

namespace dralloc::encoding {
namespace {

struct Visited {
  int line;
  std::string json;  // the parsed element, re-serialized
};

StatusOr<std::vector<Visited>> Visit(std::string_view text,
                                     const ReadLimits& limits = {}) {
  std::vector<Visited> visited;
  Status status = VisitDocuments(
      text, "visit",
      [&](const Document& document, simdjson::dom::element element) {
        visited.push_back({document.line, simdjson::minify(element)});
      },
      limits);
  if (!status.ok()) return status;
  return visited;
}

TEST(VisitDocumentsTest, SingleJsonValueIsParsedInPlace) {
  auto visited = Visit("\n\n  {\"a\": [1, 2], \"b\": \"x\"}\n");
  ASSERT_TRUE(visited.ok()) << visited.status();
  ASSERT_EQ(visited->size(), 1u);
  EXPECT_EQ((*visited)[0].json, R"({"a":[1,2],"b":"x"})");
  EXPECT_EQ((*visited)[0].line, 3);
}

TEST(VisitDocumentsTest, StreamsAndYamlVisitEveryDocument) {
  auto json = Visit("{\"a\":1}\n{\"b\":2}\n");
  ASSERT_TRUE(json.ok()) << json.status();
  ASSERT_EQ(json->size(), 2u);
  EXPECT_EQ((*json)[1].json, R"({"b":2})");

  auto yaml = Visit("a: 1\n---\n# empty\n---\nb: [x, 'y']\n");
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  ASSERT_EQ(yaml->size(), 2u);
  EXPECT_EQ((*yaml)[0].json, R"({"a":1})");
  EXPECT_EQ((*yaml)[1].json, R"({"b":["x","y"]})");
}

TEST(VisitDocumentsTest, ErrorsVisitNothingAndMatchReadDocuments) {
  for (std::string_view bad :
       {std::string_view("{\"a\": "), std::string_view("[1, 2"),
        std::string_view("a: [1, 2\n"), std::string_view("{\"a\":1} x")}) {
    SCOPED_TRACE(bad);
    int visits = 0;
    Status status = VisitDocuments(
        bad, "bad", [&](const Document&, simdjson::dom::element) { ++visits; });
    EXPECT_FALSE(status.ok());
    EXPECT_EQ(visits, 0);
    EXPECT_EQ(status, ReadDocuments(bad, "bad").status());
  }
}

TEST(VisitDocumentsTest, DepthLimitIsExact) {
  ReadLimits limits;
  limits.max_depth = 4;
  EXPECT_TRUE(Visit("[[[[1]]]]", limits).ok());
  auto too_deep = Visit("[[[[[1]]]]]", limits);
  EXPECT_FALSE(too_deep.ok());
  EXPECT_EQ(too_deep.status(),
            ReadDocuments("[[[[[1]]]]]", "visit", limits).status());
}

}  // namespace
}  // namespace dralloc::encoding
