// JavaScript performance peer for dralloc's CEL engine: evaluates the same five
// selector expressions as the C++ benchmarks BM_CelPeer/e1..e5
// (bench/dralloc_bench) over the same device with @bufbuild/cel 0.6.1, and
// prints "name<TAB>ns_per_eval" (median of --runs runs of --iterations
// evaluations each, after a warm-up). Lines starting with '#' are comments.
//
//   node bench/cel_peer/bench.mjs --modules BUILD/cel-spec/node_modules \
//       [--iterations N] [--runs R] [--filter e2]
//
// The modules come from scripts/fetch-cel-spec.sh BUILD (tests/conformance/cel/package.json).
// Like the C++ benchmark, each expression is parsed and planned once; only
// evaluation is timed, with the bindings built once and reused.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = { modules: path.resolve(here, "../../build/cel-spec/node_modules"),
  iterations: 200000, runs: 5, filter: "" };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const [flag, inline] = argv[i].split(/=(.*)/s, 2);
  const value = () => (inline !== undefined ? inline : argv[++i]);
  if (flag === "--modules") args.modules = path.resolve(value());
  else if (flag === "--iterations") args.iterations = Number(value());
  else if (flag === "--runs") args.runs = Number(value());
  else if (flag === "--filter") args.filter = value();
  else {
    process.stderr.write(`bench.mjs: unknown argument ${argv[i]}\n` +
      "usage: node bench.mjs --modules NODE_MODULES [--iterations N] [--runs R] [--filter S]\n");
    process.exit(2);
  }
}

async function load(rel) {
  const file = path.join(args.modules, rel);
  try {
    return await import(pathToFileURL(file).href);
  } catch (e) {
    process.stderr.write(`bench.mjs: cannot load ${file} (${e.message}); ` +
      "run scripts/fetch-cel-spec.sh BUILD_DIR and pass --modules BUILD_DIR/cel-spec/node_modules\n");
    process.exit(1);
  }
}
const cel = await load("@bufbuild/cel/dist/esm/index.js");
const { strings } = await load("@bufbuild/cel/dist/esm/ext/index.js");
const { celEnv, celFunc, celMethod, celList, celMap, parse, plan, isCelError, CelScalar, listType } = cel;

// ---- Stand-ins for the Kubernetes quantity and semver libraries ----
// @bufbuild/cel has neither, and no opaque value types. A quantity is
// represented as a bigint of milli-units; a semver as a list [major, minor,
// patch] of bigints. Both parse their text on every call, as a CEL program
// without constant folding would.
const kSuffixes = new Map([
  ["", 1000n], ["m", 1n], ["k", 1000n * 1000n], ["M", 1000n * 10n ** 6n],
  ["G", 1000n * 10n ** 9n], ["T", 1000n * 10n ** 12n], ["P", 1000n * 10n ** 15n],
  ["E", 1000n * 10n ** 18n], ["Ki", 1000n * 2n ** 10n], ["Mi", 1000n * 2n ** 20n],
  ["Gi", 1000n * 2n ** 30n], ["Ti", 1000n * 2n ** 40n], ["Pi", 1000n * 2n ** 50n],
  ["Ei", 1000n * 2n ** 60n],
]);
function parseQuantity(text) {
  const m = /^([+-]?[0-9]+)([a-zA-Z]*)$/.exec(text);
  const scale = m ? kSuffixes.get(m[2]) : undefined;
  if (scale === undefined) throw new Error(`invalid quantity '${text}'`);
  return BigInt(m[1]) * scale;
}
function parseSemver(text) {
  const m = /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$/.exec(text);
  if (!m) throw new Error(`invalid semver '${text}'`);
  return celList([BigInt(m[1]), BigInt(m[2]), BigInt(m[3])]);
}
function compareSemver(a, b) {
  for (let i = 0; i < 3; i++) {
    const x = a.get(i), y = b.get(i);
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
const semverType = listType(CelScalar.DYN);
const k8sFuncs = [
  celFunc("quantity", [CelScalar.STRING], CelScalar.INT, (s) => parseQuantity(s)),
  celMethod("compareTo", CelScalar.INT, [CelScalar.INT], CelScalar.INT,
    function (other) { return this < other ? -1n : this > other ? 1n : 0n; }),
  celFunc("semver", [CelScalar.STRING], semverType, (s) => parseSemver(s)),
  celMethod("isGreaterThan", semverType, [semverType], CelScalar.BOOL,
    function (other) { return compareSemver(this, other) > 0; }),
];

// ---- The device (same as the C++ benchmark) ----
const device = celMap(new Map([
  ["driver", "gpu.example.com"],
  ["attributes", celMap(new Map([["gpu.example.com", celMap(new Map([
    ["model", "A100"],
    ["cores", 108n],
    ["driverVersion", parseSemver("1.3.0")],
  ]))]]))],
  ["capacity", celMap(new Map([["gpu.example.com", celMap(new Map([
    ["memory", parseQuantity("80Gi")],
  ]))]]))],
]));

const expressions = [
  ["e1", 'device.driver == "gpu.example.com"'],
  ["e2", 'device.driver == "gpu.example.com" && ' +
    'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0 && ' +
    'device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.2.0"))'],
  ["e3", 'device.attributes["gpu.example.com"].model == "A100" && ' +
    'device.attributes["gpu.example.com"].cores >= 64'],
  ["e4", 'device.driver.startsWith("gpu") && device.driver.indexOf("example") > 0'],
  ["e5", "[1,2,3,4,5,6,7,8,9,10].exists(x, x > 9)"],
];

const env = celEnv({ funcs: [...strings, ...k8sFuncs] });
const bindings = { device };

console.log(`# @bufbuild/cel 0.6.1 on Node ${process.version}; median of ${args.runs} runs ` +
  `x ${args.iterations} evaluations after warm-up; parse+plan excluded`);
console.log("# e2 uses JS stand-ins: quantity = bigint milli-units with compareTo, " +
  "semver = [major, minor, patch] list with isGreaterThan (no Kubernetes library in @bufbuild/cel)");
console.log("name\tns_per_eval");
let failed = false;
for (const [name, source] of expressions) {
  if (args.filter && !name.includes(args.filter)) continue;
  const program = plan(env, parse(source));
  const check = program(bindings);
  if (check !== true) {
    process.stderr.write(`bench.mjs: ${name} evaluated to ` +
      `${isCelError(check) ? check.message : String(check)}, want true\n`);
    failed = true;
    continue;
  }
  let sink = 0;
  const warmup = Math.max(1000, Math.floor(args.iterations / 4));
  for (let i = 0; i < warmup; i++) if (program(bindings) === true) sink++;
  const samples = [];
  for (let r = 0; r < args.runs; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < args.iterations; i++) if (program(bindings) === true) sink++;
    const elapsed = process.hrtime.bigint() - start;
    samples.push(Number(elapsed) / args.iterations);
  }
  if (sink === 0) failed = true;  // keeps the loop observable
  samples.sort((a, b) => a - b);
  console.log(`${name}\t${samples[Math.floor(samples.length / 2)].toFixed(1)}`);
}
process.exit(failed ? 1 : 0);
