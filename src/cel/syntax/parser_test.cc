// Tests of the parser: precedence, literals, identifiers, optional syntax,
// error format, node ids and offsets, limits.
#include "cel/syntax/parser.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <variant>
#include <vector>

#include "cel/syntax/debug_string.h"
#include "cel/syntax/parser_test_util.h"

namespace dralloc::cel {
namespace {

using namespace parser_test;  // NOLINT: the shared test helpers

struct ConstCase {
  std::string_view input;
  Constant value;
};

// Each input parses to a lone constant equal to its value.
void ExpectConstants(const std::vector<ConstCase>& cases) {
  for (const ConstCase& c : cases) {
    StatusOr<ParsedExpr> parsed = Parse(c.input);
    ASSERT_TRUE(parsed.ok()) << c.input << ": " << parsed.status();
    const auto* constant = std::get_if<ConstantExpr>(&parsed->root->kind);
    ASSERT_NE(constant, nullptr) << c.input;
    EXPECT_EQ(constant->value, c.value)
        << c.input << " parsed as " << DebugString(constant->value);
  }
}

TEST(ParserTest, PrecedenceAndAssociativity) {
  RunCases({
      {"a + b * c", "_+_(a, _*_(b, c))"},
      {"a * b + c", "_+_(_*_(a, b), c)"},
      {"a - b - c", "_-_(_-_(a, b), c)"},
      {"a - b + c", "_+_(_-_(a, b), c)"},
      {"a / b % c * d", "_*_(_%_(_/_(a, b), c), d)"},
      {"a + b * c - d / e", "_-_(_+_(a, _*_(b, c)), _/_(d, e))"},
      {"(a + b) * c", "_*_(_+_(a, b), c)"},
      {"a < b == c", "_==_(_<_(a, b), c)"},
      {"a <= b >= c > d < e != f",
       "_!=_(_<_(_>_(_>=_(_<=_(a, b), c), d), e), f)"},
      {"a + 1 < b * 2", "_<_(_+_(a, 1), _*_(b, 2))"},
      {"x in [1, 2]", "@in(x, [1, 2])"},
      {"a + b in c", "@in(_+_(a, b), c)"},
      {"a in b == c", "_==_(@in(a, b), c)"},
      {"a == b && c != d", "_&&_(_==_(a, b), _!=_(c, d))"},
      {"a || b && c", "_||_(a, _&&_(b, c))"},
      {"a && b || c", "_||_(_&&_(a, b), c)"},
      {"a && b && c", "_&&_(_&&_(a, b), c)"},
      {"a && b && c && d", "_&&_(_&&_(a, b), _&&_(c, d))"},
      {"a || b || c || d || e", "_||_(_||_(_||_(a, b), c), _||_(d, e))"},
      {"a ? b : c", "_?_:_(a, b, c)"},
      {"a ? b : c ? d : e", "_?_:_(a, b, _?_:_(c, d, e))"},
      {"a || b ? c && d : e", "_?_:_(_||_(a, b), _&&_(c, d), e)"},
      {"a ? (b ? c : d) : e", "_?_:_(a, _?_:_(b, c, d), e)"},
      {"!a && b", "_&&_(!_(a), b)"},
      {"!!a", "!_(!_(a))"},
      {"!!!a", "!_(!_(!_(a)))"},
      {"-a", "-_(a)"},
      {"--a", "-_(-_(a))"},
      {"-a.b", "-_(a.b)"},
      {"!a.b()", "!_(a.b())"},
      {"-a * b", "_*_(-_(a), b)"},
      {"!-5", "!_(-5)"},
      {"1 - -5", "_-_(1, -5)"},
      {"a-5", "_-_(a, 5)"},
      {"a - 5", "_-_(a, 5)"},
      {"1--1", "_-_(1, -1)"},
      {"a.b.c", "a.b.c"},
      {".a.b", ".a.b"},
      {"a.b(c)", "a.b(c)"},
      {"a.b.c(d, e)", "a.b.c(d, e)"},
      {"f()", "f()"},
      {"f(a, b + c)", "f(a, _+_(b, c))"},
      {".f(a)", ".f(a)"},
      {"optional.of(x)", "optional.of(x)"},
      {"a[b][c]", "_[_](_[_](a, b), c)"},
      {"a.b[c].d", "_[_](a.b, c).d"},
      {"a[b].c(d)[e]", "_[_](_[_](a, b).c(d), e)"},
      {"(a).b", "a.b"},
      {"((a))", "a"},
      {"[1, 2][0]", "_[_]([1, 2], 0)"},
      {"{'a': 1}.a", "{\"a\": 1}.a"},
      {"\"s\".size()", "\"s\".size()"},
      {"-5.abs()", "-5.abs()"},
      {"1.e5", "1.e5"},
  });
}

TEST(ParserTest, ListsMapsAndStructs) {
  RunCases({
      {"[]", "[]"},
      {"[1]", "[1]"},
      {"[1, 2,]", "[1, 2]"},
      {"[,]", "[]"},
      {"{}", "{}"},
      {"{,}", "{}"},
      {"{1: 'a', 'b': 2,}", "{1: \"a\", \"b\": 2}"},
      {"{a: b}", "{a: b}"},
      {"[[1], [2, [3]]]", "[[1], [2, [3]]]"},
      {"Msg{}", "Msg{}"},
      {"Msg{f: 1, g: 'x',}", "Msg{f: 1, g: \"x\"}"},
      {"a.b.Msg{f: 1}", "a.b.Msg{f: 1}"},
      {".a.b.Msg{f: 1}", ".a.b.Msg{f: 1}"},
      {"Msg{`f-g`: 1}", "Msg{`f-g`: 1}"},
      {"Msg{if: 1}", "Msg{if: 1}"},
      {"Msg{f: Inner{g: 2}}.f.g", "Msg{f: Inner{g: 2}}.f.g"},
      {"a.package.Msg{}", "a.package.Msg{}"},
  });
  RunErrorCases({
      {"[1 2]", "mismatched input '2' expecting ',' or ']'"},
      {"[1,,]", "mismatched input ','"},
      {"[,1]", "mismatched input ','"},
      {"{1}", "expecting ':'"},
      {"{1: }", "expecting an expression"},
      {"Msg{1: 2}", "expecting IDENTIFIER"},
      {"a.b().Msg{}", "expecting <EOF>"},
      {"(a.b){}", "expecting <EOF>"},
      {"a.?b{}", "expecting <EOF>"},
      {"f(a,)", "mismatched input ')' expecting an expression"},
      {"f(a b)", "expecting ',' or ')'"},
      {"f(a)(b)", "expecting <EOF>"},
  });
}

TEST(ParserTest, IntAndUintLiterals) {
  const std::vector<ConstCase> cases = {
      {"0", int64_t{0}},
      {"123", int64_t{123}},
      {"0123", int64_t{123}},
      {"0x1F", int64_t{31}},
      {"0xabcdef", int64_t{0xabcdef}},
      {"9223372036854775807", int64_t{9223372036854775807}},
      {"-9223372036854775808", std::numeric_limits<int64_t>::min()},
      {"-0x8000000000000000", std::numeric_limits<int64_t>::min()},
      {"0x7fffffffffffffff", int64_t{0x7fffffffffffffff}},
      {"-1", int64_t{-1}},
      {"- 1", int64_t{-1}},
      {"1u", uint64_t{1}},
      {"1U", uint64_t{1}},
      {"0u", uint64_t{0}},
      {"0xFFu", uint64_t{255}},
      {"18446744073709551615u", uint64_t{18446744073709551615u}},
      {"0xffffffffffffffffu", uint64_t{18446744073709551615u}},
      {"1.5", 1.5},
      {".5", 0.5},
      {"0.0", 0.0},
      {"1e3", 1000.0},
      {"1E3", 1000.0},
      {"1e+3", 1000.0},
      {"1.5e-3", 0.0015},
      {".5e1", 5.0},
      {"-1.5", -1.5},
      {"-.5", -0.5},
      {"1e-400", 0.0},
      {"1.7976931348623157e308", 1.7976931348623157e308},
      {"true", true},
      {"false", false},
      {"null", NullConstant{}},
  };
  ExpectConstants(cases);
  RunCases({
      {"--5", "-_(-5)"},
      {"---5", "-_(-_(-5))"},
      {"-1u", "-_(1u)"},
      {"-(1)", "-_(1)"},
      {"-0x10", "-16"},
      {"-1.5", "-1.5"},
      {"1e3", "1000.0"},
      {"-9223372036854775808 - 1", "_-_(-9223372036854775808, 1)"},
  });
  RunErrorCases({
      {"9223372036854775808", "invalid int literal"},
      {"-9223372036854775809", "invalid int literal"},
      {"0x8000000000000000", "invalid int literal"},
      {"-(9223372036854775808)", "invalid int literal"},
      {"18446744073709551616u", "invalid uint literal"},
      {"0x10000000000000000u", "invalid uint literal"},
      {"99999999999999999999999", "invalid int literal"},
      {"1e400", "invalid double literal"},
      {"-1e400", "invalid double literal"},
      {"1.", "mismatched input '<EOF>' expecting IDENTIFIER"},
      {"1.5u", "mismatched input 'u' expecting <EOF>"},
      {"123abc", "mismatched input 'abc' expecting <EOF>"},
      {"0x", "mismatched input 'x' expecting <EOF>"},
      {"0X1F", "mismatched input 'X1F' expecting <EOF>"},
      {"1..5", "mismatched input '.5'"},
  });
}

TEST(ParserTest, StringAndBytesLiterals) {
  using B = BytesConstant;
  using namespace std::string_literals;
  const std::vector<ConstCase> cases = {
      {R"("abc")", "abc"s},
      {R"('abc')", "abc"s},
      {R"("")", ""s},
      {R"("a'b")", "a'b"s},
      {R"('a"b')", "a\"b"s},
      {R"("""a"b""")", "a\"b"s},
      {"\"\"\"line1\nline2\"\"\"", "line1\nline2"s},
      {"'''x\n'y'\n'''", "x\n'y'\n"s},
      {R"("\a\b\f\n\r\t\v\\\?\"\'\`")", "\a\b\f\n\r\t\v\\?\"'`"s},
      {R"("\x41\X42")", "AB"s},
      {R"("\101")", "A"s},
      {R"("\000")", "\0"s},
      {R"("\377")", "\xC3\xBF"s},
      {R"("\xff")", "\xC3\xBF"s},
      {R"("\u00e9")", "\xC3\xA9"s},
      {R"("\u20AC")", "\xE2\x82\xAC"s},
      {R"("\U0001F600")", "\xF0\x9F\x98\x80"s},
      {R"("\U0010FFFF")", "\xF4\x8F\xBF\xBF"s},
      {"\"h\xC3\xA9llo \xF0\x9F\x98\x80\"", "h\xC3\xA9llo \xF0\x9F\x98\x80"s},
      {R"(r"\n")", "\\n"s},
      {R"(R'\d+')", "\\d+"s},
      {R"(r'\')", "\\"s},
      {R"(r"""a\"b""")", "a\\\"b"s},
      {"r'''x\ny'''", "x\ny"s},
      {R"(b"abc")", B{"abc"}},
      {R"(B'abc')", B{"abc"}},
      {R"(b"\377")", B{"\xFF"}},
      {R"(b"\xff\x00")", B{"\xFF\0"s}},
      {R"(b"\X7f")", B{"\x7F"}},
      {R"(b"\000\001")", B{"\0\1"s}},
      {"b\"\xC3\xBF\"", B{"\xC3\xBF"}},
      {R"(b"\u00ff")", B{"\xC3\xBF"}},
      {R"(b"\n\\")", B{"\n\\"}},
      {R"(br'\n')", B{"\\n"}},
      {R"(bR"\x")", B{"\\x"}},
      {R"(Br'a')", B{"a"}},
      {R"(BR'a')", B{"a"}},
      {R"(rb"\n")", B{"\\n"}},
      {R"(Rb'\t')", B{"\\t"}},
      {R"(rB'a')", B{"a"}},
      {R"(b"""a
b""")",
       B{"a\nb"}},
      {R"(rb'''a'b''')", B{"a'b"}},
  };
  ExpectConstants(cases);
  RunCases({
      {R"("a" + 'b')", R"(_+_("a", "b"))"},
      {R"(b"\xff" + b'')", R"(_+_(b"\xff", b""))"},
      {R"(r + b)", "_+_(r, b)"},
      {R"(br + rb)", "_+_(br, rb)"},
  });
  RunErrorCases({
      {R"('it''s')", "mismatched input ''s'' expecting <EOF>"},
      {R"("\s")", "invalid escape sequence '\\s'"},
      {R"("\8")", "invalid escape sequence"},
      {R"("\400")", "invalid escape sequence"},
      {R"("\12")", "invalid octal escape"},
      {R"("\x4")", "needs 2 hex digits"},
      {R"("\xg0")", "needs 2 hex digits"},
      {R"("\u12")", "needs 4 hex digits"},
      {R"("\U0001F60")", "needs 8 hex digits"},
      {R"("\uD800")", "surrogate"},
      {R"("\uDFFF")", "surrogate"},
      {R"("\U0000D800")", "surrogate"},
      {R"("\U00110000")", "above U+10FFFF"},
      {R"("\UFFFFFFFF")", "above U+10FFFF"},
      {R"(b"\U0001F600")", "not allowed in bytes"},
      {R"(b"\q")", "invalid escape sequence"},
      {R"("abc)", "unterminated string literal"},
      {R"('abc")", "unterminated string literal"},
      {R"("""abc"")", "unterminated string literal"},
      {R"("abc\)", "unterminated string literal"},
      {"\"a\nb\"", "newline in string literal"},
      {"'a\rb'", "newline in string literal"},
      {"r\"a\nb\"", "newline in string literal"},
      {"\"\xff\"", "invalid UTF-8"},
      {"b\"\xC3\"", "invalid UTF-8"},
      {"\"\xED\xA0\x80\"", "invalid UTF-8"},  // encoded surrogate
      {"\"\xC0\xAF\"", "invalid UTF-8"},      // overlong
      {"a + \xF8", "invalid UTF-8"},
  });
}

TEST(ParserTest, StringEscapeErrorPosition) {
  StatusOr<ParsedExpr> parsed = Parse(R"(x + "ab\qc")");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "ERROR: <input>:1:8: Syntax error: invalid escape sequence '\\q'\n"
            " | x + \"ab\\qc\"\n"
            " | .......^");
}

TEST(ParserTest, IdentifiersAndReservedWords) {
  RunCases({
      {"_", "_"},
      {"_a1", "_a1"},
      {"A_b_C", "A_b_C"},
      {"a.package()", "a.package()"},
      {"a.if", "a.if"},
      {"a.while.for", "a.while.for"},
      {"a.?in_", "_?._(a, \"in_\")"},
      {"a.`b-c`", "a.`b-c`"},
      {"a.`b.c/d e`", "a.`b.c/d e`"},
      {"a.?`b.c`", "_?._(a, \"b.c\")"},
      {"has(a.`b-c`)", "a.`b-c`~test-only"},
      {"trueish || nullable || int_", "_||_(_||_(trueish, nullable), int_)"},
      {"inx", "inx"},
  });
  static constexpr std::string_view kReserved[] = {
      "as",        "break",  "const",  "continue", "else", "for",
      "function",  "if",     "import", "let",      "loop", "package",
      "namespace", "return", "var",    "void",     "while"};
  for (std::string_view word : kReserved) {
    const std::string expected = "reserved identifier: " + std::string(word);
    RunErrorCases({{word, expected}});
    const std::string call = std::string(word) + "(1)";
    RunErrorCases({{call, expected}});
    const std::string dotted = "." + std::string(word);
    RunErrorCases({{dotted, expected}});
    EXPECT_EQ(ParseToString("x." + std::string(word)),
              "x." + std::string(word));
  }
  RunErrorCases({
      {"a.true", "mismatched input 'true' expecting IDENTIFIER"},
      {"a.in", "expecting IDENTIFIER"},
      {"in", "mismatched input 'in' expecting an expression"},
      {"a.`b`()", "expecting <EOF>"},
      {"a.``", "invalid quoted field name"},
      {"a.`b", "invalid quoted field name"},
      {"a.`b+c`", "invalid quoted field name"},
      {"`b`", "expecting an expression"},
      {"a.1", "mismatched input '.1' expecting <EOF>"},
  });
}

TEST(ParserTest, WhitespaceAndComments) {
  RunCases({
      {" a\t+\r\n\fb ", "_+_(a, b)"},
      {"a // comment\n + b", "_+_(a, b)"},
      {"// leading\na", "a"},
      {"a // trailing", "a"},
      {"a //", "a"},
      {"a /\n b", "_/_(a, b)"},
  });
}

TEST(ParserTest, WhitespaceAndCommentsErrors) {
  RunErrorCases({
      {"", "mismatched input '<EOF>' expecting an expression"},
      {"   ", "mismatched input '<EOF>'"},
      {"// only a comment", "mismatched input '<EOF>'"},
      {"a \v b", "token recognition error at: '\\x0B'"},
      {"a # b", "token recognition error at: '#'"},
      {"a = b", "token recognition error at: '='"},
      {"a & b", "token recognition error at: '&'"},
      {"a | b", "token recognition error at: '|'"},
      {"a @ b", "token recognition error at: '@'"},
      {"a \xC3\xA9", "token recognition error at: '\xC3\xA9'"},
      {"a ; b", "token recognition error at: ';'"},
  });
  StatusOr<ParsedExpr> parsed = Parse(std::string_view("a\0b", 3));
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("token recognition error at: "
                                           "'\\x00'"),
            std::string::npos)
      << parsed.status().message();
}

TEST(ParserTest, OptionalSyntax) {
  RunCases({
      {"a.?b", "_?._(a, \"b\")"},
      {"a.?b.c", "_?._(a, \"b\").c"},
      {"a.?b.?c", "_?._(_?._(a, \"b\"), \"c\")"},
      {"a[?b]", "_[?_](a, b)"},
      {"a[?0][1]", "_[_](_[?_](a, 0), 1)"},
      {"[?a, b, ?c]", "[?a, b, ?c]"},
      {"{?a: 1, b: 2}", "{?a: 1, b: 2}"},
      {"Msg{?f: 1, g: 2}", "Msg{?f: 1, g: 2}"},
      {"a.? b", "_?._(a, \"b\")"},
      {"[?a ? b : c]", "[?_?_:_(a, b, c)]"},
  });
  ParseOptions no_optional;
  no_optional.enable_optional_syntax = false;
  RunCases({{"a.b[c]", "_[_](a.b, c)"}, {"a ? b : c", "_?_:_(a, b, c)"}},
           no_optional);
  RunErrorCases(
      {
          {"a.?b", "unsupported syntax '.?'"},
          {"a[?b]", "unsupported syntax '[?'"},
          {"[?a]", "unsupported syntax '?'"},
          {"{?a: b}", "unsupported syntax '?'"},
          {"Msg{?f: b}", "unsupported syntax '?'"},
      },
      no_optional);
  RunErrorCases({
      {"a.?b()", "expecting <EOF>"},
      {"a?.b", "mismatched input '<EOF>' expecting ':'"},
      {"[??a]", "expecting an expression"},
  });
}

TEST(ParserTest, ErrorFormat) {
  struct FormatCase {
    std::string_view input;
    std::string_view message;
  };
  const std::vector<FormatCase> cases = {
      {"a + b c",
       "ERROR: <input>:1:7: Syntax error: mismatched input 'c' expecting "
       "<EOF>\n | a + b c\n | ......^"},
      {"a +",
       "ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting "
       "an expression\n | a +\n | ...^"},
      {"a +\n  b c",
       "ERROR: <input>:2:5: Syntax error: mismatched input 'c' expecting "
       "<EOF>\n |   b c\n | ....^"},
      {"x +\n\ny +\n)",
       "ERROR: <input>:4:1: Syntax error: mismatched input ')' expecting an "
       "expression\n | )\n | ^"},
      // Columns count code points, not bytes.
      {"'\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80' + x y",
       "ERROR: <input>:1:11: Syntax error: mismatched input 'y' expecting "
       "<EOF>\n | '\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80' + x y\n"
       " | ..........^"},
      {"\"\"\"a\n\xC3\xA9\"\"\" + if",
       "ERROR: <input>:2:8: Syntax error: reserved identifier: if\n"
       " | \xC3\xA9\"\"\" + if\n | .......^"},
      {"a\r\n+ #",
       "ERROR: <input>:2:3: Syntax error: token recognition error at: '#'\n"
       " | + #\n | ..^"},
      {"a + '\xC3\xA9\xff'",
       "ERROR: <input>:1:7: Syntax error: invalid UTF-8 in source text\n"
       " | a + '\xC3\xA9\xEF\xBF\xBD'\n | ......^"},
  };
  for (const FormatCase& c : cases) {
    StatusOr<ParsedExpr> parsed = Parse(c.input);
    ASSERT_FALSE(parsed.ok()) << c.input;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(parsed.status().message(), c.message) << c.input;
  }
}

void CollectIds(const Expr& expr, std::vector<const Expr*>* out) {
  out->push_back(&expr);
  auto visit = [&](const ExprPtr& e) {
    if (e) CollectIds(*e, out);
  };
  if (const auto* s = std::get_if<SelectExpr>(&expr.kind)) {
    visit(s->operand);
  } else if (const auto* c = std::get_if<CallExpr>(&expr.kind)) {
    visit(c->target);
    for (const ExprPtr& a : c->args) visit(a);
  } else if (const auto* l = std::get_if<ListExpr>(&expr.kind)) {
    for (const ExprPtr& e : l->elements) visit(e);
  } else if (const auto* m = std::get_if<MapExpr>(&expr.kind)) {
    for (const MapEntry& e : m->entries) {
      visit(e.key);
      visit(e.value);
    }
  } else if (const auto* st = std::get_if<StructExpr>(&expr.kind)) {
    for (const StructField& f : st->fields) visit(f.value);
  } else if (const auto* comp = std::get_if<ComprehensionExpr>(&expr.kind)) {
    visit(comp->iter_range);
    visit(comp->accu_init);
    visit(comp->loop_condition);
    visit(comp->loop_step);
    visit(comp->result);
  }
}

TEST(ParserTest, IdsAreUniqueAndBounded) {
  for (std::string_view input :
       {"a + b * c", "o.optMap(v, v.w[0] + 1)", "l.sortBy(x, x.y)",
        "{1: [a, ?b], ?c: Msg{f: 1}}", "m.transformMap(k, v, k, v)",
        "a.?b[?c] ? d : e || f && g"}) {
    StatusOr<ParsedExpr> parsed = Parse(input);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    std::vector<const Expr*> nodes;
    CollectIds(*parsed->root, &nodes);
    std::set<int64_t> ids;
    for (const Expr* e : nodes) {
      EXPECT_GT(e->id, 0) << input;
      EXPECT_LE(e->id, parsed->max_id) << input;
      EXPECT_TRUE(ids.insert(e->id).second) << "duplicate id in " << input;
      if (const auto* m = std::get_if<MapExpr>(&e->kind)) {
        for (const MapEntry& entry : m->entries) {
          EXPECT_GT(entry.id, 0);
          EXPECT_TRUE(ids.insert(entry.id).second);
        }
      }
      if (const auto* s = std::get_if<StructExpr>(&e->kind)) {
        for (const StructField& field : s->fields) {
          EXPECT_GT(field.id, 0);
          EXPECT_TRUE(ids.insert(field.id).second);
        }
      }
    }
    EXPECT_EQ(parsed->source->text(), input);
  }
}

TEST(ParserTest, IdsFollowSourceOrder) {
  StatusOr<ParsedExpr> parsed = Parse("a + b * c");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(DebugString(*parsed->root, /*with_ids=*/true),
            "_+_(a^#1, _*_(b^#3, c^#5)^#4)^#2");
  EXPECT_EQ(parsed->max_id, 5);
  parsed = Parse("f(x).y[0]");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(DebugString(*parsed->root, /*with_ids=*/true),
            "_[_](f(x^#2)^#1.y^#3, 0^#5)^#4");
}

TEST(ParserTest, Offsets) {
  // Each case: input, then the debug string of a node and its offset.
  struct OffsetCase {
    std::string_view input;
    std::string_view node;
    int32_t offset;
  };
  const std::vector<OffsetCase> cases = {
      {"a + b", "_+_(a, b)", 2},  {"a + b", "a", 0},
      {"a + b", "b", 4},          {"ab.cd", "ab.cd", 2},
      {"f(x)", "f(x)", 1},        {"a.f(x)", "a.f(x)", 3},
      {"a[1]", "_[_](a, 1)", 1},  {"a.?b", "_?._(a, \"b\")", 1},
      {"a.?b", "\"b\"", 3},       {" -5", "-5", 1},
      {"!a", "!_(a)", 0},         {"x ? y : z", "_?_:_(x, y, z)", 2},
      {"[1, 2]", "[1, 2]", 0},    {"{1: 2}", "{1: 2}", 0},
      {"M{f: 1}", "M{f: 1}", 1},  {".a", ".a", 0},
      {"\"s\"", "\"s\"", 0},      {"a && b", "_&&_(a, b)", 2},
      {"x in y", "@in(x, y)", 2}, {"has(a.b)", "a.b~test-only", 5},
      {"l.all(x, x)", "l", 0},
  };
  for (const OffsetCase& c : cases) {
    StatusOr<ParsedExpr> parsed = Parse(c.input);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    std::vector<const Expr*> nodes;
    CollectIds(*parsed->root, &nodes);
    bool found = false;
    for (const Expr* e : nodes) {
      if (DebugString(*e) == c.node) {
        EXPECT_EQ(e->offset, c.offset) << c.input << " node " << c.node;
        found = true;
        break;
      }
    }
    EXPECT_TRUE(found) << c.input << " node " << c.node;
  }
  // Map entries and struct fields sit at their ':'.
  StatusOr<ParsedExpr> parsed = Parse("{1: 2, 3 : 4}");
  ASSERT_TRUE(parsed.ok());
  const auto& map = std::get<MapExpr>(parsed->root->kind);
  EXPECT_EQ(map.entries[0].offset, 2);
  EXPECT_EQ(map.entries[1].offset, 9);
  // Comprehensions sit at the macro call's '('.
  parsed = Parse("l.all(x, x)");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->root->offset, 5);
}

TEST(ParserTest, DebugStringConstants) {
  EXPECT_EQ(DebugString(Constant(NullConstant{})), "null");
  EXPECT_EQ(DebugString(Constant(true)), "true");
  EXPECT_EQ(DebugString(Constant(int64_t{-3})), "-3");
  EXPECT_EQ(DebugString(Constant(uint64_t{3})), "3u");
  EXPECT_EQ(DebugString(Constant(2.0)), "2.0");
  EXPECT_EQ(DebugString(Constant(0.1)), "0.1");
  EXPECT_EQ(DebugString(Constant(1e300)), "1e+300");
  EXPECT_EQ(DebugString(Constant(std::string("a\"\\\n\x01"))),
            R"("a\"\\\n\x01")");
  EXPECT_EQ(DebugString(Constant(BytesConstant{"a\xff"})), R"(b"a\xff")");
}

TEST(ParserTest, Limits) {
  // cel-spec's minimum supported sizes parse with the default options.
  auto repeat = [](std::string_view part, int n, std::string_view sep) {
    std::string out;
    for (int i = 0; i < n; ++i) {
      if (i > 0) out += sep;
      out += part;
    }
    return out;
  };
  std::vector<std::string> ok_inputs = {
      repeat("a", 32, " || "),
      repeat("a", 32, " && "),
      "f(" + repeat("a", 32, ", ") + ")",
      "[" + repeat("1", 32, ", ") + "]",
      repeat("a ? b", 24, " : ") + " : c",
      repeat("1", 25, " + "),
      repeat("1", 25, " * "),
      repeat("f(", 12, "") + "1" + std::string(12, ')'),
      "a" + repeat(".b", 12, ""),
      "a" + repeat("[0]", 12, ""),
      repeat("[", 12, "") + std::string(12, ']'),
      repeat("(", 150, "") + "1" + std::string(150, ')'),
      repeat("a", 1000, " || "),
      repeat("a == 1", 1000, " && "),
  };
  for (const std::string& input : ok_inputs) {
    StatusOr<ParsedExpr> parsed = Parse(input);
    EXPECT_TRUE(parsed.ok()) << input.substr(0, 80) << ": " << parsed.status();
  }

  ParseOptions small;
  small.max_recursion_depth = 10;
  RunErrorCases(
      {
          {"((((((((((1))))))))))", "expression recursion limit exceeded"},
          {"a.b.c.d.e.f.g.h.i.j.k", "expression recursion limit exceeded"},
          {"-----------a", "expression recursion limit exceeded"},
          {"1+1+1+1+1+1+1+1+1+1+1", "expression recursion limit exceeded"},
          {"[[[[[[[[[[1]]]]]]]]]]", "expression recursion limit exceeded"},
      },
      small);
  RunCases({{"(((((((((1)))))))))", "1"},
            {"a.b.c.d.e.f.g.h.i", "a.b.c.d.e.f.g.h.i"}},
           small);

  ParseOptions tiny;
  tiny.max_expression_bytes = 5;
  EXPECT_EQ(ParseToString("a + b", tiny), "_+_(a, b)");
  StatusOr<ParsedExpr> parsed = Parse("a + bc", tiny);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(parsed.status().message().find("expression size exceeds limit"),
            std::string::npos);
}

}  // namespace
}  // namespace dralloc::cel
