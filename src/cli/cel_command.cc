// dralloc cel eval [--device FILE [--device-name NAME]] EXPR
// dralloc cel cost EXPR
//
// eval prints the result as JSON (exit 0); a compile error exits 2 and a
// runtime error (including the cost limit) exits 3, with the message on
// stderr. cost prints the estimated maximum cost in the DRA environment.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>

#include "api/cel_device.h"
#include "api/codec.h"
#include "cel/dra/dra_environment.h"
#include "cel/program.h"
#include "cli/commands.h"
#include "cli/object_loader.h"
#include "cli/value_json.h"

namespace dralloc::cli {
namespace {

inline constexpr int kExitRuntimeError = 3;

struct CelOptions {
  std::string expression;
  std::string device_file;
  std::string device_name;
};

// Loads the device to bind as `device`, or reports why not.
StatusOr<std::unique_ptr<cel::DraDevice>> LoadDevice(const CelOptions& o) {
  LoadResult loaded = LoadObjects({o.device_file}, api::DecodeOptions{});
  if (!loaded.failures.empty()) return loaded.failures.front();
  for (const LoadedObject& object : loaded.objects) {
    if (!object.result.errors.empty() || !object.result.object) continue;
    const auto* slice = std::get_if<api::ResourceSlice>(&*object.result.object);
    if (slice == nullptr) continue;
    for (const api::Device& device : slice->spec.devices) {
      if (o.device_name.empty() || device.name == o.device_name) {
        return api::ToCelDevice(slice->spec.driver, device);
      }
    }
  }
  if (!o.device_name.empty()) {
    return NotFoundError(fmt::format("{}: no ResourceSlice device named {}",
                                     o.device_file, o.device_name));
  }
  return NotFoundError(
      fmt::format("{}: no ResourceSlice with a device", o.device_file));
}

int RunEval(const CelOptions& o) {
  std::unique_ptr<cel::DraDevice> device;
  if (!o.device_file.empty()) {
    StatusOr<std::unique_ptr<cel::DraDevice>> loaded = LoadDevice(o);
    if (!loaded.ok()) {
      std::cerr << "error: " << loaded.status().message() << '\n';
      return kExitBadInput;
    }
    device = *std::move(loaded);
  }
  auto env = cel::DeviceExplorationEnvironment();
  cel::CompileOptions compile_options;
  compile_options.estimate_cost = false;
  auto program = cel::Compile(env, o.expression, compile_options);
  if (!program.ok()) {
    std::cerr << program.status().message() << '\n';
    return kExitBadInput;
  }
  cel::Activation activation(*env);
  if (device) activation.Set(cel::DeviceSlot(), device->AsValue());
  cel::EvalContext ctx;
  cel::Value result = (*program)->Evaluate(activation, ctx);
  if (result.IsError()) {
    std::cerr << result.error_message() << '\n';
    return kExitRuntimeError;
  }
  std::cout << ValueToJson(result).dump() << '\n';
  return kExitOk;
}

int RunCost(const CelOptions& o) {
  cel::CompileOptions compile_options;
  auto program = cel::Compile(cel::DeviceExplorationEnvironment(), o.expression,
                              compile_options);
  if (!program.ok()) {
    std::cerr << program.status().message() << '\n';
    return kExitBadInput;
  }
  std::cout << (*program)->estimated_cost().max << '\n';
  return kExitOk;
}

}  // namespace

void RegisterCelCommand(CLI::App& app, int& exit_code) {
  CLI::App* cel = app.add_subcommand(
      "cel", "Evaluate CEL expressions in the DRA environment.");
  cel->require_subcommand(1);

  auto [eval, eval_options] = AddCommand<CelOptions>(
      *cel, "eval",
      "Evaluate EXPR and print the result as JSON (exit 2: compile error, "
      "exit 3: runtime error).",
      exit_code, RunEval);
  eval.add_option("--device", eval_options.device_file,
                  "A ResourceSlice manifest; one of its devices is bound as "
                  "`device`");
  eval.add_option("--device-name", eval_options.device_name,
                  "The device to bind (default: the first)");
  eval.add_option("EXPR", eval_options.expression, "CEL expression")
      ->required();

  auto [cost, cost_options] = AddCommand<CelOptions>(
      *cel, "cost", "Print the estimated cost of EXPR in the DRA environment.",
      exit_code, RunCost);
  cost.add_option("EXPR", cost_options.expression, "CEL expression")
      ->required();
}

}  // namespace dralloc::cli
