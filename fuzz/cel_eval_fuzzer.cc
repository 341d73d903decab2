// libFuzzer target for the whole CEL engine: parse, check, estimate, plan and
// evaluate any text against a DRA device. Every input must end in a value or
// an error, never a crash, a hang or unbounded memory (the runtime cost limit
// bounds evaluation).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "cel/dra/dra_environment.h"
#include "cel/program.h"

namespace {

const dralloc::cel::DraDevice& Device() {
  static auto* device = [] {
    auto* d = new dralloc::cel::DraDevice("gpu.example.com");
    d->AddAttribute("model", dralloc::cel::Value::String("A100"));
    d->AddAttribute("cores", dralloc::cel::Value::Int(108));
    d->AddCapacity("memory", *dralloc::Quantity::Parse("80Gi"));
    return d;
  }();
  return *device;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dralloc::cel;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto env = DeviceExplorationEnvironment();
  for (bool check : {true, false}) {
    CompileOptions options;
    options.check = check;
    auto program = Compile(env, text, options);
    if (!program.ok()) continue;
    Activation activation(*env);
    activation.Set(DeviceSlot(), Device().AsValue());
    EvalContext ctx;
    Value result = (*program)->Evaluate(activation, ctx);
    (void)result;
  }
  return 0;
}
