// Converts the cel-spec "simple" conformance tests shipped in the npm package
// @bufbuild/cel-spec (a JavaScript module exporting one object literal) into
// JSON lines for the C++ runner tests/conformance/cel/conformance_test.cc:
//
//   node tests/conformance/cel/convert_conformance.mjs --modules BUILD/cel-spec/node_modules > conformance.jsonl
//
// One line per test:
//   {"file","section","index","name","expr","bindings":{name: cel.expr.Value JSON},
//    "expected": cel.expr.Value JSON | null, "expectError": bool, "errorHint": [..],
//    "disableCheck","checkOnly","disableMacros","container","typeEnv":[cel.expr.Decl JSON],
//    "expectedType": cel.expr.Type JSON | null}
// Tests are keyed by file/section/index because names repeat within sections.
// Tests that expect unknown sets are dropped (none exist in cel-spec v0.25.1).
import path from "node:path";
import { pathToFileURL } from "node:url";

function usage(message) {
  process.stderr.write(`convert_conformance: ${message}\n` +
    "usage: node convert_conformance.mjs --modules NODE_MODULES_DIR > conformance.jsonl\n");
  process.exit(2);
}

let modules = null;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--modules") modules = argv[++i];
  else if (argv[i].startsWith("--modules=")) modules = argv[i].slice("--modules=".length);
  else usage(`unknown argument '${argv[i]}'`);
}
if (!modules) usage("missing --modules");

const dataPath = path.resolve(modules, "@bufbuild/cel-spec/dist/esm/testdata/conformance.js");
let tests;
try {
  ({ tests } = await import(pathToFileURL(dataPath).href));
} catch (e) {
  usage(`cannot load ${dataPath}: ${e.message}`);
}

let written = 0;
let dropped = 0;
const lines = [];
for (const file of tests.suites ?? []) {
  for (const section of file.suites ?? []) {
    (section.tests ?? []).forEach((test, index) => {
      const o = test.original;  // cel.expr.conformance.test.SimpleTest in proto3 JSON
      const bindings = {};
      for (const [name, exprValue] of Object.entries(o.bindings ?? {})) {
        // cel.expr.ExprValue: every binding in this version is {value}.
        if (exprValue.value === undefined) {
          throw new Error(`${file.name}/${section.name}/${o.name}: binding '${name}' is not a value`);
        }
        bindings[name] = exprValue.value;
      }
      let expected = null;
      let expectError = false;
      let expectedType = null;
      if (o.value !== undefined) {
        expected = o.value;
      } else if (o.typedResult !== undefined) {
        expected = o.typedResult.result ?? null;
        expectedType = o.typedResult.deducedType ?? null;
      } else if (o.evalError !== undefined || o.anyEvalErrors !== undefined) {
        expectError = true;
      } else if (o.unknown !== undefined || o.anyUnknowns !== undefined) {
        dropped++;
        return;
      } else {
        expected = { boolValue: true };  // no matcher: the result must be true
      }
      const record = {
        file: file.name,
        section: section.name,
        index,
        name: o.name,
        expr: o.expr,
        bindings,
        expected,
        expectError,
        errorHint: expectError ? (o.evalError?.errors ?? []).map((e) => e.message) : [],
        disableCheck: !!o.disableCheck,
        checkOnly: !!o.checkOnly,
        disableMacros: !!o.disableMacros,
        container: o.container ?? "",
        typeEnv: o.typeEnv ?? [],
        expectedType,
      };
      lines.push(JSON.stringify(record));
      written++;
    });
  }
}
process.stdout.write(lines.join("\n") + "\n");
process.stderr.write(`convert_conformance: ${written} tests` +
  (dropped ? ` (${dropped} unknown-set tests dropped)` : "") + "\n");
