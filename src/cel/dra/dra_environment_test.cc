// DRA selector semantics and cost estimates, with the scenarios of
// Kubernetes' dynamic-resource-allocation cel/compile_test.go (cel.md §3.5).
#include "cel/dra/dra_environment.h"

#include <gtest/gtest.h>

#include <atomic>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "cel/lib/semver_library.h"
#include "common/semver.h"

namespace dralloc::cel {
namespace {

struct Attr {
  std::string name;
  Value value;
};
struct Cap {
  std::string name;
  std::string quantity;
};

struct SelectorCase {
  std::string name;
  std::string expression;
  std::string driver = "dra.example.com";
  std::vector<Attr> attributes;
  std::vector<Cap> capacity;
  bool allow_multiple = false;
  std::optional<bool> want;  // nullopt: expect an error
  std::string error;         // substring of the runtime or compile error
  bool compile_error = false;
  uint64_t cost = 0;  // estimated max cost; 0 = not checked
};

Value Semver(const char* text) {
  return MakeSemverValue(*SemVer::ParseStrict(text));
}

Value Strings(std::vector<std::string> items) {
  std::vector<Value> values;
  for (auto& s : items) values.push_back(Value::String(s));
  return Value::List(new VectorList(std::move(values)));
}

Value Ints(std::vector<int64_t> items) {
  std::vector<Value> values;
  for (int64_t i : items) values.push_back(Value::Int(i));
  return Value::List(new VectorList(std::move(values)));
}

// Driver, attribute lookup by qualified and unqualified names, bindings.
std::vector<SelectorCase> AttributeCases() {
  return {
      {.name = "driver",
       .expression = R"(device.driver == "dra.example.com")",
       .want = true,
       .cost = 4},
      {.name = "empty_driver",
       .expression = R"(device.driver == "")",
       .driver = "",
       .want = true,
       .cost = 2},
      {.name = "domain_in_attributes",
       .expression = R"("dra.example.com" in device.attributes)",
       .attributes = {{"dra.example.com/something", Value::Bool(true)}},
       .want = true,
       .cost = 3},
      {.name = "unknown_domain_not_in_attributes",
       .expression = R"(!("no-such-domain" in device.attributes))",
       .want = true},
      {.name = "unqualified_name_uses_driver_domain",
       .expression = R"(device.attributes["dra.example.com"].name)",
       .attributes = {{"name", Value::Bool(true)}},
       .want = true,
       .cost = 4},
      {.name = "other_domain",
       .expression = R"(device.attributes["other.example.com"].name)",
       .attributes = {{"other.example.com/name", Value::Bool(true)}},
       .want = true,
       .cost = 4},
      {.name = "int_attribute",
       .expression = R"(device.attributes["dra.example.com"].name > 0)",
       .attributes = {{"name", Value::Int(1)}},
       .want = true,
       .cost = 5},
      {.name = "string_attribute",
       .expression = R"(device.attributes["dra.example.com"].name == "fish")",
       .attributes = {{"name", Value::String("fish")}},
       .want = true,
       .cost = 5},
      {.name = "bind",
       .expression =
           R"(cel.bind(dra, device.attributes["dra.example.com"], dra.name))",
       .attributes = {{"name", Value::Bool(true)}},
       .want = true,
       .cost = 15},
  };
}

// Versions and quantities, with and without guards.
std::vector<SelectorCase> ValueTypeCases() {
  return {
      {.name = "version",
       .expression =
           R"(device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1")))",
       .attributes = {{"name", Semver("1.0.0")}},
       .want = true,
       .cost = 6},
      {.name = "version_normalized",
       .expression =
           R"(device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true))",
       .attributes = {{"name", Semver("1.0.0")}},
       .want = true,
       .cost = 7},
      {.name = "quantity",
       .expression =
           R"(device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
       .capacity = {{"name", "1Mi"}},
       .want = true,
       .cost = 6},
      {.name = "guarded_quantity",
       .expression =
           R"("name" in device.capacity["dra.example.com"] && device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
       .capacity = {{"name", "1Mi"}},
       .want = true,
       .cost = 10},
      {.name = "absent_capacity_guard",
       .expression =
           R"(!("name" in device.capacity["dra.example.com"]) || device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
       .want = true,
       .cost = 11},
  };
}

// Comprehensions and list functions over attributes, allowMultipleAllocations.
std::vector<SelectorCase> ListCases() {
  return {
      {.name = "exists_one_domains",
       .expression =
           R"(device.attributes.exists_one(x, x == "dra.example.com"))",
       .attributes = {{"name", Value::Bool(true)}},
       .want = true,
       .cost = 164},
      {.name = "exists_one_names",
       .expression =
           R"(device.attributes["dra.example.com"].exists_one(x, x == "services"))",
       .attributes = {{"services", Value::String("some_example_value")}},
       .want = true,
       .cost = 133},
      {.name = "split",
       .expression =
           R"(device.attributes["dra.example.com"].services.split("example").size() >= 2)",
       .attributes = {{"services", Value::String("some_example_value")}},
       .want = true,
       .cost = 19},
      {.name = "matches",
       .expression =
           R"(device.attributes["dra.example.com"].services.matches("[^a]?sym"))",
       .attributes = {{"services", Value::String("asymetric")}},
       .want = true,
       .cost = 18},
      {.name = "list_attribute_exists",
       .expression =
           R"(device.attributes["dra.example.com"].names.exists(x, x > 0))",
       .attributes = {{"names", Ints({1, 2})}},
       .want = true,
       .cost = 389},
      {.name = "includes_list",
       .expression =
           R"(device.attributes["dra.example.com"].name.includes("fish"))",
       .attributes = {{"name", Strings({"fish", "bird"})}},
       .want = true},
      {.name = "includes_scalar",
       .expression =
           R"(device.attributes["dra.example.com"].name.includes("fish"))",
       .attributes = {{"name", Value::String("fish")}},
       .want = true},
      {.name = "in_list_attribute",
       .expression = R"(1 in device.attributes["dra.example.com"].names)",
       .attributes = {{"names", Ints({1, 2, 3})}},
       .want = true,
       .cost = 68},
      {.name = "allow_multiple_default",
       .expression = R"(device.allowMultipleAllocations == false)",
       .want = true,
       .cost = 3},
      {.name = "allow_multiple_set",
       .expression = R"(device.allowMultipleAllocations)",
       .allow_multiple = true,
       .want = true},
  };
}

// Errors at evaluation and at compile time, and non-bool results.
std::vector<SelectorCase> ErrorCases() {
  return {
      {.name = "missing_attribute_is_an_error",
       .expression =
           R"(device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0")))",
       .error = "no such key: noSuchAttr. consider using CEL optional chaining",
       .cost = 6},
      {.name = "optional_chaining_default",
       .expression =
           R"(device.attributes["dra.example.com"].?missing.orValue(7) == 7)",
       .want = true},
      {.name = "has_guard",
       .expression =
           R"(has(device.attributes["dra.example.com"].missing) && device.attributes["dra.example.com"].missing == 1)",
       .want = false},
      {.name = "scalar_is_not_iterable",
       .expression =
           R"(device.attributes["dra.example.com"].name.exists(x, x > 0))",
       .attributes = {{"name", Value::Int(1)}},
       .error = "got 'types.Int', expected iterable type",
       .cost = 389},
      {.name = "list_result_is_not_bool",
       .expression = R"(device.attributes["dra.example.com"].names)",
       .attributes = {{"names", Strings({"a"})}},
       .error = "CEL result of type list could not be converted to bool",
       .cost = 4},
      {.name = "int_result",
       .expression = "1",
       .error = "must evaluate to bool or the unknown type, not int",
       .compile_error = true},
      {.name = "syntax",
       .expression = "?!",
       .error = "Syntax error",
       .compile_error = true},
      {.name = "undeclared",
       .expression = "dev.driver == \"x\"",
       .error = "undeclared reference to 'dev'",
       .compile_error = true},
      {.name = "heterogeneous_literal",
       .expression = "[1, 'a'].size() == 2",
       .error = "expected type 'int' but found 'string'",
       .compile_error = true},
      {.name = "quantity_compare_to",
       .expression =
           R"(device.capacity['dra.example.com'].memory.compareTo(quantity('10Gi')) >= 0)",
       .capacity = {{"memory", "16Gi"}},
       .want = true},
  };
}

std::vector<SelectorCase> Cases() {
  std::vector<SelectorCase> cases;
  for (auto group : {AttributeCases, ValueTypeCases, ListCases, ErrorCases}) {
    std::vector<SelectorCase> more = group();
    cases.insert(cases.end(), std::make_move_iterator(more.begin()),
                 std::make_move_iterator(more.end()));
  }
  return cases;
}

class SelectorTest : public testing::TestWithParam<SelectorCase> {};

TEST_P(SelectorTest, Evaluates) {
  const SelectorCase& c = GetParam();
  ExpressionCheck check = CheckSelectorExpression(c.expression);
  if (c.compile_error) {
    ASSERT_FALSE(check.compile_error.ok());
    EXPECT_NE(check.compile_error.message().find(c.error), std::string::npos)
        << check.compile_error.message();
    return;
  }
  ASSERT_TRUE(check.compile_error.ok()) << check.compile_error.message();
  if (c.cost != 0) {
    EXPECT_EQ(check.cost.max, c.cost);
  }
  DraDevice device(c.driver);
  for (const Attr& a : c.attributes) device.AddAttribute(a.name, a.value);
  for (const Cap& q : c.capacity) {
    device.AddCapacity(q.name, *Quantity::Parse(q.quantity));
  }
  device.SetAllowMultipleAllocations(c.allow_multiple);
  auto program = SelectorCache().GetOrCompile(c.expression);
  ASSERT_TRUE(program.ok()) << program.status().message();
  EvalContext ctx;
  StatusOr<bool> result = MatchSelector(**program, device, ctx);
  if (c.want.has_value()) {
    ASSERT_TRUE(result.ok()) << result.status().message();
    EXPECT_EQ(*result, *c.want);
  } else {
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.status().message().find(c.error), std::string::npos)
        << result.status().message();
  }
}

INSTANTIATE_TEST_SUITE_P(Dra, SelectorTest, testing::ValuesIn(Cases()),
                         [](const testing::TestParamInfo<SelectorCase>& info) {
                           return info.param.name;
                         });

// Seven nested all() over ten elements: far beyond the runtime limit.
TEST(DraCost, RuntimeLimitStopsDeepComprehensions) {
  std::string list = "[1,2,3,4,5,6,7,8,9,10]";
  std::string expr = "int('1'.find('[0-9]*')) < 100";
  for (const char* v : {"a", "b", "c", "d", "e", "f", "g"}) {
    expr = list + ".all(" + v + ", " + expr + ")";
  }
  ExpressionCheck check = CheckSelectorExpression(expr);
  ASSERT_TRUE(check.compile_error.ok()) << check.compile_error.message();
  EXPECT_TRUE(check.too_complex);
  auto program = SelectorCache().GetOrCompile(expr);
  ASSERT_TRUE(program.ok());
  DraDevice device("dra.example.com");
  EvalContext ctx;
  StatusOr<bool> result = MatchSelector(**program, device, ctx);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("actual cost limit exceeded"),
            std::string::npos)
      << result.status().message();
}

TEST(DraCost, CancellationInterruptsComprehensions) {
  DraDevice device("dra.example.com");
  for (int i = 0; i < 1000; ++i) {
    device.AddAttribute("a" + std::to_string(i), Value::Int(i));
  }
  auto program = SelectorCache().GetOrCompile(
      R"(device.attributes["dra.example.com"].map(key, device.attributes["dra.example.com"][key] * 20).filter(e, e > 50).exists(e, e == 60))");
  ASSERT_TRUE(program.ok()) << program.status().message();
  std::atomic<bool> cancelled{true};
  EvalContext ctx(kDefaultCostLimit, &cancelled);
  StatusOr<bool> result = MatchSelector(**program, device, ctx);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("operation interrupted"),
            std::string::npos);
  EvalContext free_ctx;
  StatusOr<bool> ok = MatchSelector(**program, device, free_ctx);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_TRUE(*ok);
}

TEST(DraConstraint, DevicesListSeesEveryDevice) {
  DraDevice a("gpu.example.com"), b("gpu.example.com");
  a.AddAttribute("numa", Value::Int(1));
  b.AddAttribute("numa", Value::Int(1));
  const DraDevice* devices[] = {&a, &b};
  auto program = ConstraintCache().GetOrCompile(
      R"(devices.all(d, d.attributes["gpu.example.com"].numa == devices[0].attributes["gpu.example.com"].numa) && size(devices) == 2)");
  ASSERT_TRUE(program.ok()) << program.status().message();
  EvalContext ctx;
  StatusOr<bool> result = MatchConstraint(**program, devices, ctx);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_TRUE(*result);
  b.AddAttribute("numa", Value::Int(2));
  EvalContext ctx2;
  EXPECT_FALSE(*MatchConstraint(**program, devices, ctx2));
}

TEST(DraCache, BoundedAndShared) {
  ProgramCache cache(SelectorEnvironment(), 2);
  auto p1 = cache.GetOrCompile("device.driver == 'a'");
  auto p1again = cache.GetOrCompile("device.driver == 'a'");
  ASSERT_TRUE(p1.ok());
  EXPECT_EQ(p1->get(), p1again->get());
  ASSERT_TRUE(cache.GetOrCompile("device.driver == 'b'").ok());
  ASSERT_TRUE(cache.GetOrCompile("device.driver == 'c'").ok());
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_FALSE(cache.GetOrCompile("device.driver ==").ok());
}

// The planner's fast paths (device paths resolved by reference, fused
// `call <op> int-constant`, single-overload calls, flattened &&/||) must give
// the results, errors and runtime costs of the generic evaluation, which an
// unchecked compile of the same text exercises (no static overload proofs,
// every candidate tested at runtime).
TEST(DraRuntime, FastPathsMatchGenericEvaluation) {
  DraDevice device("dra.example.com");
  device.AddAttribute("model", Value::String("A100"));
  device.AddAttribute("cores", Value::Int(108));
  device.AddAttribute("driverVersion", Semver("1.3.0"));
  device.AddAttribute("other.com/flag", Value::Bool(true));
  device.AddCapacity("memory", *Quantity::Parse("80Gi"));
  const std::string d = R"(device.attributes["dra.example.com"])";
  const std::string m = R"(device.capacity["dra.example.com"].memory)";
  const std::vector<std::string> expressions = {
      R"(device.driver == "dra.example.com" && )" + m +
          R"(.compareTo(quantity("40Gi")) >= 0 && )" + d +
          R"(.driverVersion.isGreaterThan(semver("1.2.0")))",
      R"(device.driver == "x" && )" + m + R"(.compareTo(quantity("1")) >= 0)",
      m + R"(.compareTo(quantity("80Gi")) == 0)",
      m + R"(.compareTo(quantity("100Gi")) < 0 || false)",
      m + R"(.isGreaterThan(quantity("1Gi")))",
      d + R"(.driverVersion.compareTo(semver("2.0.0")) != -1)",
      d + R"(.driverVersion.isLessThan(semver("2.0.0")))",
      d + R"(.cores.isGreaterThan(semver("1.2.0")))",
      d + R"(.missing.isGreaterThan(semver("1.2.0")))",
      R"(device.attributes["x.com"].v.isGreaterThan(semver("1.2.0")))",
      d + R"(.cores >= 64 && )" + d + ".cores < 200",
      d + ".model >= 1",
      d + ".missing >= 1 || true",
      d + ".missing > 1 && false",
      d + ".cores && true",
      "false || " + d + ".missing || " + d + ".cores",
      d + ".missing && " + d + ".cores",
      d + R"(.model == "A100" && device.attributes["other.com"].flag)",
      R"(device.attributes["other.com"].flag || )" + d + ".missing",
  };
  Activation activation(*SelectorEnvironment());
  activation.Set(DeviceSlot(), device.AsValue());
  for (const std::string& text : expressions) {
    SCOPED_TRACE(text);
    CompileOptions unchecked;
    unchecked.check = false;
    auto fast = Compile(SelectorEnvironment(), text);
    auto generic = Compile(SelectorEnvironment(), text, unchecked);
    ASSERT_TRUE(fast.ok()) << fast.status().message();
    ASSERT_TRUE(generic.ok()) << generic.status().message();
    EvalContext fast_ctx, generic_ctx;
    Value a = (*fast)->Evaluate(activation, fast_ctx);
    Value b = (*generic)->Evaluate(activation, generic_ctx);
    EXPECT_EQ(a.DebugString(), b.DebugString());
    EXPECT_EQ(fast_ctx.cost(), generic_ctx.cost());
  }
  // The benchmark's e2 on its device: 4 (driver) + 7 (quantity clause) + 6.
  auto program = Compile(SelectorEnvironment(), expressions[0]);
  ASSERT_TRUE(program.ok());
  EvalContext ctx;
  EXPECT_TRUE((*program)->Evaluate(activation, ctx).IsTrue());
  EXPECT_EQ(ctx.cost(), 17u);
}

}  // namespace
}  // namespace dralloc::cel
