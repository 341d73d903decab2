// The whole engine on hostile input: random mutations of valid expressions,
// deep nesting and pathological comprehensions must end in a value or an
// error — never a crash, a hang or runaway memory.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cel/dra/dra_environment.h"
#include "cel/program.h"

namespace dralloc::cel {
namespace {

const char* kSeeds[] = {
    R"(device.driver == "gpu.example.com")",
    R"(device.attributes["gpu.example.com"].model == "A100" && device.attributes["gpu.example.com"].cores >= 64)",
    R"(device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0)",
    R"([1,2,3].map(x, x * 2).filter(y, y > 2).exists(z, z == 6))",
    R"({"a": [1, 2], "b": [3]}.transformMap(k, v, v.size()))",
    R"(cel.bind(x, "abc".split("b"), x.join("-")).matches("^a-c$"))",
    R"(optional.of(1).optMap(v, v + 1).orValue(0) == 2)",
    R"(timestamp("2023-01-01T00:00:00Z") + duration("1h") > timestamp("2023-01-01T00:30:00Z"))",
    R"("%s=%d".format(["a", 1]) == "a=1" ? 1u : 2u)",
    R"(semver("1.2.3").isGreaterThan(semver("1.2.0")) || ip("::1").isLoopback())",
    R"([[1], [2, 3]].all(l, l.all(e, e > 0)) && {1: 2}[1] == 2)",
    R"(sets.contains([1, 2, 3], [1]) && [3, 1, 2].sort() == [1, 2, 3])",
};

constexpr char kTokens[] =
    "()[]{}.,:?!-+*/%<>=&|\"'`\\ abcxyz0123456789uU.eE_\n\t";

std::string Mutate(std::string s, std::mt19937& rng) {
  int edits = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < edits; ++i) {
    size_t pos = s.empty() ? 0 : rng() % (s.size() + 1);
    switch (rng() % 5) {
      case 0:
        if (!s.empty() && pos < s.size()) s.erase(pos, 1 + rng() % 3);
        break;
      case 1:
        s.insert(pos, 1, kTokens[rng() % (sizeof(kTokens) - 1)]);
        break;
      case 2:
        if (pos < s.size()) s[pos] = static_cast<char>(rng() % 256);
        break;
      case 3: {  // splice a chunk of another seed
        std::string other = kSeeds[rng() % std::size(kSeeds)];
        size_t from = rng() % other.size();
        s.insert(pos, other.substr(from, rng() % 20));
        break;
      }
      default:
        if (!s.empty()) s += s.substr(rng() % s.size());
        break;
    }
  }
  return s;
}

int RunOne(std::string_view text, const DraDevice& device) {
  auto env = DeviceExplorationEnvironment();
  int outcomes = 0;
  for (bool check : {true, false}) {
    CompileOptions options;
    options.check = check;
    auto program = Compile(env, text, options);
    if (!program.ok()) {
      EXPECT_FALSE(program.status().message().empty());
      continue;
    }
    Activation activation(*env);
    activation.Set(DeviceSlot(), device.AsValue());
    EvalContext ctx;
    Value v = (*program)->Evaluate(activation, ctx);
    outcomes += v.IsError() ? 0 : 1;
  }
  return outcomes;
}

TEST(CelEngineStress, RandomMutationsEndInValueOrError) {
  DraDevice device("gpu.example.com");
  device.AddAttribute("model", Value::String("A100"));
  device.AddAttribute("cores", Value::Int(108));
  device.AddCapacity("memory", *Quantity::Parse("80Gi"));
  std::mt19937 rng(20261122);
  int values = 0;
  for (int i = 0; i < 6000; ++i) {
    std::string text = Mutate(kSeeds[i % std::size(kSeeds)], rng);
    values += RunOne(text, device);
  }
  // Some mutations stay valid; most do not. Both kinds must occur.
  EXPECT_GT(values, 100);
}

TEST(CelEngineStress, PathologicalExpressionsAreBounded) {
  DraDevice device("gpu.example.com");
  std::string big_list = "lists.range(1000)";
  const std::vector<std::string> cases = {
      // Quadratic and exponential blow-ups stop at the runtime cost limit.
      big_list + ".map(a, " + big_list + ".map(b, a * b))",
      "lists.range(100).map(a, lists.range(100).map(b, lists.range(100).map(c, "
      "c)))",
      "cel.bind(s, 'ab', cel.bind(t, s + s + s + s, cel.bind(u, t + t + t + t, "
      "u + u + u + u))).size() > 0",
      "lists.range(2000).map(x, string(x)).join(',').split(',').size() == 2000",
      std::string(150, '(') + "1" + std::string(150, ')'),
      std::string(300, '[') + std::string(300, ']'),
      "'a'.matches('(((a*)*)*)*b')",
  };
  for (const std::string& text : cases) {
    SCOPED_TRACE(text.substr(0, 80));
    RunOne(text, device);
  }
}

}  // namespace
}  // namespace dralloc::cel
