// Robustness of the parser: deep, huge and malformed inputs must yield a
// tree or an error, never a crash, a hang or a stack overflow.
#include <gtest/gtest.h>
#include <pthread.h>

#include <random>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "cel/syntax/debug_string.h"
#include "cel/syntax/parser.h"

namespace dralloc::cel {
namespace {

// Nesting far beyond the limit: 100k for the simplest shapes, 20k for the
// others (the parser stops at max_recursion_depth either way).
constexpr int kDeep = 100'000;
constexpr int kDeepish = 20'000;

ParseOptions LargeInputOptions() {
  ParseOptions options;
  options.max_expression_bytes = size_t{16} << 20;
  return options;
}

std::string Repeat(std::string_view part, int n) {
  std::string out;
  out.reserve(part.size() * n);
  for (int i = 0; i < n; ++i) out += part;
  return out;
}

// Checks the invariants of a parse result.
void CheckResult(const StatusOr<ParsedExpr>& parsed, std::string_view input) {
  if (!parsed.ok()) {
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(parsed.status().message().rfind("ERROR: <input>:", 0), 0u)
        << parsed.status().message();
    return;
  }
  ASSERT_NE(parsed->root, nullptr) << input;
  EXPECT_GT(parsed->root->id, 0);
  EXPECT_LE(parsed->root->id, parsed->max_id);
}

TEST(ParserStressTest, DeepNestingFailsCleanly) {
  const ParseOptions options = LargeInputOptions();
  struct DeepCase {
    std::string name;
    std::string input;
  };
  const std::vector<DeepCase> cases = {
      {"parens", Repeat("(", kDeep) + "a" + Repeat(")", kDeep)},
      {"unclosed parens", Repeat("(", kDeep)},
      {"negations", Repeat("-", kDeep) + "a"},
      {"negated literal", Repeat("-", kDeep) + "5"},
      {"nots", Repeat("!", kDeep) + "a"},
      {"member chain", Repeat("a.", kDeep) + "b"},
      {"optional member chain", "a" + Repeat(".?b", kDeepish)},
      {"member calls", "a" + Repeat(".f()", kDeepish)},
      {"indexes", "a" + Repeat("[0]", kDeepish)},
      {"nested indexes", Repeat("a[", kDeepish) + "0" + Repeat("]", kDeepish)},
      {"lists", Repeat("[", kDeepish) + Repeat("]", kDeepish)},
      {"optional lists", Repeat("[?", kDeepish) + "1" + Repeat("]", kDeepish)},
      {"maps", Repeat("{1: ", kDeepish) + "1" + Repeat("}", kDeepish)},
      {"map keys", Repeat("{", kDeepish) + "1" + Repeat(": 1}", kDeepish)},
      {"structs", Repeat("M{f: ", kDeepish) + "1" + Repeat("}", kDeepish)},
      {"calls", Repeat("f(", kDeepish) + Repeat(")", kDeepish)},
      {"member call args", Repeat("a.f(", kDeepish) + Repeat(")", kDeepish)},
      {"ternaries", Repeat("a ? b : ", kDeepish) + "c"},
      {"ternary conditions",
       Repeat("(a ? ", kDeepish) + "b" + Repeat(" : c)", kDeepish)},
      {"macros",
       Repeat("x.all(y, ", kDeepish) + "true" + Repeat(")", kDeepish)},
      {"has", Repeat("has(", kDeepish) + "a.b" + Repeat(")", kDeepish)},
      {"binds",
       Repeat("cel.bind(a, 1, ", kDeepish) + "a" + Repeat(")", kDeepish)},
      {"sum", "1" + Repeat(" + 1", kDeep / 2)},
      {"product", "1" + Repeat("*1", kDeepish)},
      {"relations", "1" + Repeat(" < 1", kDeepish)},
      {"mixed binary", "1" + Repeat(" + 2 * 3", kDeepish / 2)},
      {"right nested sums",
       Repeat("1 + (", kDeepish) + "1" + Repeat(")", kDeepish)},
  };
  for (const DeepCase& c : cases) {
    StatusOr<ParsedExpr> parsed = Parse(c.input, options);
    ASSERT_FALSE(parsed.ok()) << c.name;
    EXPECT_NE(
        parsed.status().message().find("expression recursion limit exceeded"),
        std::string::npos)
        << c.name << ": " << parsed.status().message().substr(0, 200);
  }
}

TEST(ParserStressTest, MacroBlowUpIsBounded) {
  // Each optMap copies its target, so a chain doubles the tree per step.
  const std::string input = "o" + Repeat(".optMap(v, v)", 100);
  StatusOr<ParsedExpr> parsed = Parse(input);
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("expression size exceeds limit"),
            std::string::npos)
      << parsed.status().message().substr(0, 200);
  // A few steps are fine.
  EXPECT_TRUE(Parse("o" + Repeat(".optMap(v, v)", 8)).ok());
  // `!-a` is not in the grammar (a '-' run is not a member).
  parsed = Parse(Repeat("!-", kDeep / 2) + "a", LargeInputOptions());
  ASSERT_FALSE(parsed.ok());
}

// Parses inputs nested just below the default limit on a thread with a
// 2 MiB stack: the parser's frames must stay small (an ASan build uses about
// 5 KiB per nesting level).
TEST(ParserStressTest, MaxDepthFitsInSmallStack) {
  struct Job {
    std::vector<std::string> inputs;
    std::vector<bool> ok;
  } job;
  constexpr int kLevels = 195;
  job.inputs = {
      Repeat("(", kLevels) + "a" + Repeat(")", kLevels),
      Repeat("[?", kLevels) + "1" + Repeat("]", kLevels),
      Repeat("{1: ", kLevels) + "1" + Repeat("}", kLevels),
      Repeat("M{f: ", kLevels) + "1" + Repeat("}", kLevels),
      Repeat("f(", kLevels) + Repeat(")", kLevels),
      Repeat("a.f(", kLevels) + Repeat(")", kLevels),
      Repeat("a[", kLevels) + "0" + Repeat("]", kLevels),
      Repeat("a ? b : ", kLevels) + "c",
      Repeat("!", kLevels) + "a",
      "a" + Repeat(".b", kLevels),
      Repeat("x.all(y, ", kLevels / 4) + "true" + Repeat(")", kLevels / 4),
      Repeat("[{1: M{f: (a + -b[c.d(", kLevels / 8) + "1" +
          Repeat(")])}}]", kLevels / 8),
  };
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, size_t{2} << 20), 0);
  pthread_t thread;
  ASSERT_EQ(pthread_create(
                &thread, &attr,
                [](void* arg) -> void* {
                  auto* job = static_cast<Job*>(arg);
                  for (const std::string& input : job->inputs) {
                    StatusOr<ParsedExpr> parsed = Parse(input);
                    job->ok.push_back(parsed.ok());
                    if (parsed.ok()) DebugString(*parsed->root);
                  }
                  return nullptr;
                },
                &job),
            0);
  ASSERT_EQ(pthread_join(thread, nullptr), 0);
  pthread_attr_destroy(&attr);
  ASSERT_EQ(job.ok.size(), job.inputs.size());
  for (size_t i = 0; i < job.inputs.size(); ++i) {
    EXPECT_TRUE(job.ok[i]) << job.inputs[i].substr(0, 40);
  }
}

TEST(ParserStressTest, LongFlatInputs) {
  const ParseOptions options = LargeInputOptions();
  // Chains far longer than max_recursion_depth that stay shallow.
  constexpr int kLong = 5'000;
  const std::vector<std::string> ok_inputs = {
      "a" + Repeat(" || a", kLong),
      "a" + Repeat(" && a", kLong),
      "a == 1" + Repeat(" && a == 1 || b < 2", kLong / 4),
      "[" + Repeat("1, ", kLong) + "]",
      "{" + Repeat("1: 2, ", kLong / 2) + "}",
      "f(" + Repeat("a, ", kLong) + "a)",
      "'" + Repeat("x", 2 * kDeep) + "'",
      "'''" + Repeat("\\n\n", kDeepish) + "'''",
      Repeat("// comment\n", kDeepish) + "a",
      Repeat(" ", 2 * kDeep) + "a",
  };
  for (const std::string& input : ok_inputs) {
    StatusOr<ParsedExpr> parsed = Parse(input, options);
    EXPECT_TRUE(parsed.ok()) << input.substr(0, 60) << ": "
                             << parsed.status().message().substr(0, 200);
    CheckResult(parsed, input);
  }
  // The default size limit rejects these before lexing.
  StatusOr<ParsedExpr> parsed = Parse(ok_inputs.back());
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("expression size exceeds limit"),
            std::string::npos);
}

TEST(ParserStressTest, RandomBytes) {
  std::mt19937 rng(12345);
  const ParseOptions options = LargeInputOptions();
  std::string bytes(1 << 20, '\0');
  for (char& c : bytes) c = static_cast<char>(rng() & 0xFF);
  CheckResult(Parse(bytes, options), "random bytes");
  // Random ASCII from the token alphabet gets further into the parser.
  constexpr std::string_view kAlphabet =
      "abcxyz_019 .,:?!-+*/%<>=&|()[]{}'\"`\\\nrbu";
  for (char& c : bytes) c = kAlphabet[rng() % kAlphabet.size()];
  CheckResult(Parse(bytes, options), "random tokens");
  for (int i = 0; i < 2000; ++i) {
    std::string small(rng() % 64, '\0');
    for (char& c : small) {
      c = (i % 2 == 0) ? static_cast<char>(rng() & 0xFF)
                       : kAlphabet[rng() % kAlphabet.size()];
    }
    CheckResult(Parse(small), small);
  }
}

TEST(ParserStressTest, RandomMutations) {
  const std::vector<std::string> seeds = {
      "a + b * c - d / e % f",
      "x in [1, 2, 3] && !(y || z)",
      "a ? b : c ? d : e",
      "-9223372036854775808 + 18446744073709551615u + 1.5e-3 + .5",
      "0x1F + 0xFFu - --5",
      R"("a\n\x41\101\u00e9\U0001F600" + 'b' + """c""" + r'\d')",
      R"(b"\377\xff" + br'\n' + rb"x" + B'''y''')",
      "has(a.b.c) && has(d.`e-f`)",
      "l.all(x, x > 0) || l.exists(i, v, i < v)",
      "l.exists_one(x, x == 1) && l.existsOne(i, v, v)",
      "l.map(x, x * 2).filter(y, y % 2 == 0)",
      "l.map(x, x > 1, x + 1)",
      "m.transformMap(k, v, k != 'a', v + 1)",
      "m.transformMapEntry(k, v, {v: k})",
      "l.transformList(i, v, i < 3, v * i)",
      "cel.bind(a, 1 + 2, cel.bind(b, a * 2, [a, b]))",
      "o.optMap(v, v.size()).orValue(0) + o.optFlatMap(v, optional.of(v))",
      "l.sortBy(x, -x.priority)[0]",
      "a.?b.c[?0].orValue(null)",
      "[?a, b, ?c.?d] + [1, 2,]",
      "{?'k': v, 'x': [1, {2: 3}],}",
      "a.b.Msg{f: 1, ?g: o, `h-i`: 'x'}.f",
      ".pkg.Type{}.field",
      "device.attributes['dra.example.com'].model == 'a100'",
      "device.capacity['dra.example.com'].memory.compareTo(quantity('10Gi')) "
      ">= 0",
      "cel.bind(x, device.attributes, x.exists(k, k.startsWith('gpu')))",
      "a.package() + b.if + c.while.for",
      "f(a, b)(c)",
      "// comment\na /* not a comment */ b",
      "'''multi\nline''' + \"\"\"x\ny\"\"\"",
  };
  const std::vector<std::string> splices = {"(",        ")",
                                            "[",        "]",
                                            "{",        "}",
                                            ".",        ".?",
                                            "[?",       "?",
                                            ":",        ",",
                                            "!",        "-",
                                            "+",        "&&",
                                            "||",       "==",
                                            "in",       "'",
                                            "\"",       "`",
                                            "\\",       "\"\"\"",
                                            "0x",       "1u",
                                            "1e",       "r'",
                                            "b\"",      "has(",
                                            ".all(x, ", "cel.bind(",
                                            ".optMap(", "\n",
                                            "//",       "\xC3",
                                            "\xE2\x82", "\xF0\x9F\x98\x80",
                                            "\\u",      "\\x",
                                            "\\3",      "9223372036854775808",
                                            "if",       "null",
                                            "M{",       "a.b.c"};
  std::mt19937 rng(20240601);
  auto random_byte = [&]() -> char {
    if (rng() % 4 == 0) return static_cast<char>(rng() & 0xFF);
    return static_cast<char>(' ' + rng() % 95);
  };
  constexpr int kIterations = 20'000;
  int ok_count = 0;
  for (int iter = 0; iter < kIterations; ++iter) {
    std::string input = seeds[iter % seeds.size()];
    const int mutations = 1 + static_cast<int>(rng() % 4);
    for (int m = 0; m < mutations; ++m) {
      const size_t pos = input.empty() ? 0 : rng() % (input.size() + 1);
      switch (rng() % 6) {
        case 0:  // insert a byte
          input.insert(input.begin() + pos, random_byte());
          break;
        case 1:  // delete a range
          if (!input.empty() && pos < input.size()) {
            input.erase(pos, 1 + rng() % 4);
          }
          break;
        case 2:  // replace a byte
          if (pos < input.size()) input[pos] = random_byte();
          break;
        case 3:  // splice a token
          input.insert(pos, splices[rng() % splices.size()]);
          break;
        case 4: {  // duplicate a slice
          if (input.empty()) break;
          const size_t from = rng() % input.size();
          const size_t len =
              1 + rng() % std::min<size_t>(16, input.size() - from);
          input.insert(pos, input.substr(from, len));
          break;
        }
        default:  // truncate
          input.resize(pos);
          break;
      }
    }
    StatusOr<ParsedExpr> parsed = Parse(input);
    CheckResult(parsed, input);
    if (parsed.ok()) {
      ++ok_count;
      EXPECT_FALSE(DebugString(*parsed->root).empty());
    }
  }
  // The mutations must leave a fair share of inputs valid, or the test
  // would only exercise the first few tokens.
  EXPECT_GT(ok_count, kIterations / 20);
}

}  // namespace
}  // namespace dralloc::cel
