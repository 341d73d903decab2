#include "cel/syntax/parser.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "cel/syntax/lexer.h"
#include "cel/syntax/macro_expander.h"

namespace dralloc::cel {
namespace {

using internal::ExprFactory;
using internal::MakeArgs;

bool IsReserved(std::string_view name) {
  static constexpr std::string_view kReserved[] = {
      "as",        "break",  "const",  "continue", "else", "for",
      "function",  "if",     "import", "let",      "loop", "package",
      "namespace", "return", "var",    "void",     "while"};
  return std::find(std::begin(kReserved), std::end(kReserved), name) !=
         std::end(kReserved);
}

struct BinaryOperator {
  int precedence;  // 1: relations, 2: additive, 3: multiplicative
  std::string_view function;
};

std::optional<BinaryOperator> BinaryOperatorOf(TokenKind kind) {
  switch (kind) {
    case TokenKind::kEq:
      return BinaryOperator{1, "_==_"};
    case TokenKind::kNe:
      return BinaryOperator{1, "_!=_"};
    case TokenKind::kLt:
      return BinaryOperator{1, "_<_"};
    case TokenKind::kLe:
      return BinaryOperator{1, "_<=_"};
    case TokenKind::kGt:
      return BinaryOperator{1, "_>_"};
    case TokenKind::kGe:
      return BinaryOperator{1, "_>=_"};
    case TokenKind::kIn:
      return BinaryOperator{1, "@in"};
    case TokenKind::kPlus:
      return BinaryOperator{2, "_+_"};
    case TokenKind::kMinus:
      return BinaryOperator{2, "_-_"};
    case TokenKind::kStar:
      return BinaryOperator{3, "_*_"};
    case TokenKind::kSlash:
      return BinaryOperator{3, "_/_"};
    case TokenKind::kPercent:
      return BinaryOperator{3, "_%_"};
    default:
      return std::nullopt;
  }
}

bool IsNumber(TokenKind kind) {
  return kind == TokenKind::kInt || kind == TokenKind::kDouble;
}

// Accumulates digits in `base`; false when the value would exceed `limit`.
bool ParseUnsigned(std::string_view digits, int base, uint64_t limit,
                   uint64_t* out) {
  if (digits.empty()) return false;
  uint64_t value = 0;
  for (char c : digits) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      return false;
    }
    if (d >= base) return false;
    if (value > (limit - static_cast<uint64_t>(d)) / base) return false;
    value = value * base + d;
  }
  *out = value;
  return true;
}

// For a well-formed double spelling that from_chars found out of range:
// true when it is too large (as opposed to too small).
bool IsOverflow(std::string_view spelling) {
  const size_t e = spelling.find_first_of("eE");
  const std::string_view mantissa = spelling.substr(0, e);
  int64_t exponent = 0;
  if (e != std::string_view::npos) {
    size_t i = e + 1;
    bool negative = false;
    if (i < spelling.size() && (spelling[i] == '+' || spelling[i] == '-')) {
      negative = spelling[i] == '-';
      ++i;
    }
    for (; i < spelling.size(); ++i) {
      exponent = std::min<int64_t>(exponent * 10 + (spelling[i] - '0'),
                                   int64_t{1} << 40);
    }
    if (negative) exponent = -exponent;
  }
  const size_t dot = mantissa.find('.');
  const std::string_view integral = mantissa.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos
                                        ? std::string_view()
                                        : mantissa.substr(dot + 1);
  const size_t first = integral.find_first_not_of('0');
  if (first != std::string_view::npos) {
    return static_cast<int64_t>(integral.size() - first) + exponent > 0;
  }
  const size_t frac_first = fraction.find_first_not_of('0');
  if (frac_first == std::string_view::npos) return false;
  return exponent - static_cast<int64_t>(frac_first) > 0;
}

// A token as shown in "mismatched input" messages.
std::string Describe(const Token& token) {
  if (token.kind == TokenKind::kEof) return "<EOF>";
  constexpr size_t kMax = 40;
  if (token.text.size() <= kMax) return std::string(token.text);
  size_t cut = kMax;
  while (cut > 0 &&
         (static_cast<unsigned char>(token.text[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return std::string(token.text.substr(0, cut)) + "...";
}

// The node budget: generous for any expression (about one node per byte is
// typical), yet linear in the input.
int64_t MaxNodes(size_t text_bytes) {
  return 8 * static_cast<int64_t>(text_bytes) + 10'000;
}

// Recursive descent over the token stream. The functions on the recursion
// path (ParseExpr → ParseOr → ParseBinary → ParseUnary → ParseMember →
// ParsePrimary and the bracketed forms) return a Status and write their
// result to `out`, and keep rarely used branches in separate functions, so
// that each nesting level costs little stack (a few hundred bytes in an
// optimized build) and max_recursion_depth levels fit in any thread.
class Parser {
 public:
  Parser(const Source& source, const ParseOptions& options)
      : options_(options),
        lexer_(source.text()),
        factory_(source, options.max_recursion_depth,
                 MaxNodes(source.text().size())) {}

  StatusOr<ExprPtr> ParseAll() {
    ExprPtr root;
    RETURN_IF_ERROR(ParseExpr(&root));
    if (!At(TokenKind::kEof)) return Mismatched("<EOF>");
    return root;
  }

  int64_t max_id() const { return factory_.max_id(); }

 private:
  struct OperatorRef {
    int64_t id;
    int32_t offset;
  };

  static bool IsFinal(const Token& token) {
    return token.kind == TokenKind::kEof || token.kind == TokenKind::kError;
  }

  // The k-th token from the current one (k < kLookahead); the final kEof or
  // kError token repeats forever.
  const Token& Peek(size_t k = 0) {
    while (count_ <= k) {
      if (count_ > 0) {
        const Token& last = ring_[(head_ + count_ - 1) % kLookahead];
        if (IsFinal(last)) return last;
      }
      ring_[(head_ + count_) % kLookahead] = lexer_.Next();
      ++count_;
    }
    return ring_[(head_ + k) % kLookahead];
  }

  // Consumes the current token (never the final kEof/kError one).
  Token Take() {
    Peek();
    if (IsFinal(ring_[head_])) return ring_[head_];
    Token token = std::move(ring_[head_]);
    head_ = (head_ + 1) % kLookahead;
    --count_;
    return token;
  }

  // Consumes the current token and returns its offset.
  int32_t Skip() {
    const Token& current = Peek();
    const int32_t offset = current.offset;
    if (!IsFinal(current)) {
      head_ = (head_ + 1) % kLookahead;
      --count_;
    }
    return offset;
  }

  bool At(TokenKind kind) { return Peek().kind == kind; }

  [[gnu::noinline]] Status SyntaxError(int32_t offset,
                                       std::string_view detail) const {
    return factory_.Error(offset, "Syntax error: " + std::string(detail));
  }

  // An error at the current token: its lexical error if it is one.
  [[gnu::noinline]] Status Mismatched(std::string_view expecting) {
    const Token& token = Peek();
    if (token.kind == TokenKind::kError) {
      return SyntaxError(token.error_offset, token.value);
    }
    return SyntaxError(token.offset, "mismatched input '" + Describe(token) +
                                         "' expecting " +
                                         std::string(expecting));
  }

  Status Expect(TokenKind kind, std::string_view spelled) {
    if (!At(kind)) return Mismatched(spelled);
    Skip();
    return OkStatus();
  }

  // Consumes a '?' marking an optional element, field or entry.
  Status TakeOptionalMarker(std::string_view syntax, bool* optional) {
    *optional = false;
    if (!At(TokenKind::kQuestion)) return OkStatus();
    if (!options_.enable_optional_syntax) {
      return SyntaxError(Peek().offset,
                         "unsupported syntax '" + std::string(syntax) + "'");
    }
    Skip();
    *optional = true;
    return OkStatus();
  }

  static Status Store(StatusOr<ExprPtr> result, ExprPtr* out) {
    if (!result.ok()) return result.status();
    *out = std::move(result).value();
    return OkStatus();
  }

  Status NewCall(int64_t id, int32_t offset, std::string_view function,
                 std::vector<ExprPtr> args, ExprPtr* out) {
    return Store(factory_.NewWithId(
                     id, offset,
                     CallExpr{nullptr, std::string(function), std::move(args)}),
                 out);
  }

  // expr: or ('?' or ':' expr)?  -- every nested structure comes back here,
  // so the nesting depth is bounded here.
  Status ParseExpr(ExprPtr* out) {
    if (depth_ >= options_.max_recursion_depth) {
      return factory_.DepthError(Peek().offset);
    }
    ++depth_;
    Status status = ParseOr(out);
    if (status.ok() && At(TokenKind::kQuestion)) status = ParseTernary(out);
    --depth_;
    return status;
  }

  // The rest of `condition ? then : else`, with *out the condition.
  [[gnu::noinline]] Status ParseTernary(ExprPtr* out) {
    const int32_t offset = Skip();
    const int64_t id = factory_.NextId();
    ExprPtr then, otherwise;
    RETURN_IF_ERROR(ParseOr(&then));
    RETURN_IF_ERROR(Expect(TokenKind::kColon, "':'"));
    RETURN_IF_ERROR(ParseExpr(&otherwise));
    return NewCall(
        id, offset, "_?_:_",
        MakeArgs(std::move(*out), std::move(then), std::move(otherwise)), out);
  }

  // Builds a balanced tree of `function` over terms[lo..hi]; ops[i] joins
  // terms[i] and terms[i + 1]. Recursion depth is log2 of the term count.
  [[gnu::noinline]] Status Balance(std::string_view function,
                                   std::vector<ExprPtr>& terms,
                                   const std::vector<OperatorRef>& ops,
                                   size_t lo, size_t hi, ExprPtr* out) {
    if (lo == hi) {
      *out = std::move(terms[lo]);
      return OkStatus();
    }
    const size_t mid = lo + (hi - lo) / 2;
    ExprPtr left, right;
    RETURN_IF_ERROR(Balance(function, terms, ops, lo, mid, &left));
    RETURN_IF_ERROR(Balance(function, terms, ops, mid + 1, hi, &right));
    return NewCall(ops[mid].id, ops[mid].offset, function,
                   MakeArgs(std::move(left), std::move(right)), out);
  }

  // or: and ('||' and)*;  and: binary ('&&' binary)*. Both chains become
  // balanced trees (as in cel-go) so that long chains stay shallow.
  Status ParseOr(ExprPtr* out) {
    std::vector<ExprPtr> or_terms;
    std::vector<OperatorRef> or_ops;
    std::vector<ExprPtr> and_terms;
    std::vector<OperatorRef> and_ops;
    while (true) {
      and_terms.clear();
      and_ops.clear();
      while (true) {
        and_terms.emplace_back();
        RETURN_IF_ERROR(ParseBinary(&and_terms.back()));
        if (!At(TokenKind::kAnd)) break;
        const int32_t offset = Skip();
        and_ops.push_back({factory_.NextId(), offset});
      }
      or_terms.emplace_back();
      RETURN_IF_ERROR(Balance("_&&_", and_terms, and_ops, 0,
                              and_terms.size() - 1, &or_terms.back()));
      if (!At(TokenKind::kOr)) break;
      const int32_t offset = Skip();
      or_ops.push_back({factory_.NextId(), offset});
    }
    return Balance("_||_", or_terms, or_ops, 0, or_terms.size() - 1, out);
  }

  struct PendingOperator {
    BinaryOperator op;
    OperatorRef ref;
  };

  [[gnu::noinline]] Status Reduce(std::vector<ExprPtr>& operands,
                                  std::vector<PendingOperator>& ops) {
    ExprPtr rhs = std::move(operands.back());
    operands.pop_back();
    ExprPtr lhs = std::move(operands.back());
    operands.pop_back();
    const PendingOperator pending = ops.back();
    ops.pop_back();
    operands.emplace_back();
    return NewCall(pending.ref.id, pending.ref.offset, pending.op.function,
                   MakeArgs(std::move(lhs), std::move(rhs)), &operands.back());
  }

  // Relations, additive and multiplicative operators, all left-associative,
  // by operator precedence with explicit stacks (no recursion).
  Status ParseBinary(ExprPtr* out) {
    std::vector<ExprPtr> operands;
    std::vector<PendingOperator> ops;
    operands.emplace_back();
    RETURN_IF_ERROR(ParseUnary(&operands.back()));
    while (true) {
      const std::optional<BinaryOperator> op = BinaryOperatorOf(Peek().kind);
      if (!op) break;
      while (!ops.empty() && ops.back().op.precedence >= op->precedence) {
        RETURN_IF_ERROR(Reduce(operands, ops));
      }
      const int32_t offset = Skip();
      ops.push_back({*op, {factory_.NextId(), offset}});
      operands.emplace_back();
      RETURN_IF_ERROR(ParseUnary(&operands.back()));
    }
    while (!ops.empty()) RETURN_IF_ERROR(Reduce(operands, ops));
    *out = std::move(operands.back());
    return OkStatus();
  }

  // unary: member | '!'+ member | '-'+ member.
  Status ParseUnary(ExprPtr* out) {
    if (!At(TokenKind::kNot) && !At(TokenKind::kMinus)) return ParseMember(out);
    std::vector<OperatorRef> prefix;
    const TokenKind kind = Peek().kind;
    // A '-' right before a number literal is the literal's sign.
    while (At(kind) && !(kind == TokenKind::kMinus && IsNumber(Peek(1).kind))) {
      if (static_cast<int>(prefix.size()) >= options_.max_recursion_depth) {
        return factory_.DepthError(Peek().offset);
      }
      const int32_t offset = Skip();
      prefix.push_back({factory_.NextId(), offset});
    }
    RETURN_IF_ERROR(ParseMember(out));
    return ApplyPrefix(kind == TokenKind::kNot ? "!_" : "-_", prefix, out);
  }

  [[gnu::noinline]] Status ApplyPrefix(std::string_view function,
                                       const std::vector<OperatorRef>& prefix,
                                       ExprPtr* out) {
    if (prefix.empty()) return OkStatus();
    if (factory_.Depth(**out) + static_cast<int>(prefix.size()) >
        options_.max_recursion_depth) {
      return factory_.DepthError(prefix.front().offset);
    }
    for (size_t i = prefix.size(); i-- > 0;) {
      RETURN_IF_ERROR(NewCall(prefix[i].id, prefix[i].offset, function,
                              MakeArgs(std::move(*out)), out));
    }
    return OkStatus();
  }

  // member: primary ('.' '?'? name | '.' name '(' args ')' |
  //                  '[' '?'? expr ']' | '{' fields '}')*
  // where a struct body may only follow a (dotted) name.
  Status ParseMember(ExprPtr* out) {
    std::string name;  // the dotted name while the member is one
    bool is_name = false;
    RETURN_IF_ERROR(ParsePrimary(out, &name, &is_name));
    while (true) {
      if (At(TokenKind::kDot)) {
        RETURN_IF_ERROR(ParseDotSuffix(out, &name, &is_name));
      } else if (At(TokenKind::kLBracket)) {
        RETURN_IF_ERROR(ParseIndexSuffix(out));
        is_name = false;
      } else if (At(TokenKind::kLBrace) && is_name) {
        RETURN_IF_ERROR(ParseStruct(std::move(name), out));
        is_name = false;
      } else {
        return OkStatus();
      }
    }
  }

  // '.' '?'? name | '.' name '(' args ')' applied to *out.
  [[gnu::noinline]] Status ParseDotSuffix(ExprPtr* out, std::string* name,
                                          bool* is_name) {
    const int32_t dot = Skip();
    const int64_t id = factory_.NextId();
    bool optional;
    RETURN_IF_ERROR(TakeOptionalMarker(".?", &optional));
    if (!At(TokenKind::kIdent) && !At(TokenKind::kEscapedIdent)) {
      return Mismatched("IDENTIFIER");
    }
    const bool escaped = At(TokenKind::kEscapedIdent);
    Token field = Take();
    if (!escaped && !optional && At(TokenKind::kLParen)) {
      const int32_t open = Skip();
      std::vector<ExprPtr> args;
      RETURN_IF_ERROR(ParseArgs(&args));
      *is_name = false;
      return MakeCall(id, open, std::move(*out), std::move(field.value),
                      std::move(args), out);
    }
    if (*is_name && !optional && !escaped) {
      *name += '.';
      *name += field.value;
    } else {
      *is_name = false;
    }
    if (optional) {
      ExprPtr field_name;
      RETURN_IF_ERROR(
          Store(factory_.NewConst(field.offset, std::move(field.value)),
                &field_name));
      return NewCall(id, dot, "_?._",
                     MakeArgs(std::move(*out), std::move(field_name)), out);
    }
    return Store(factory_.NewWithId(id, dot,
                                    SelectExpr{std::move(*out),
                                               std::move(field.value), false}),
                 out);
  }

  // '[' '?'? expr ']' applied to *out.
  [[gnu::noinline]] Status ParseIndexSuffix(ExprPtr* out) {
    const int32_t open = Skip();
    const int64_t id = factory_.NextId();
    bool optional;
    RETURN_IF_ERROR(TakeOptionalMarker("[?", &optional));
    ExprPtr index;
    RETURN_IF_ERROR(ParseExpr(&index));
    RETURN_IF_ERROR(Expect(TokenKind::kRBracket, "']'"));
    return NewCall(id, open, optional ? "_[?_]" : "_[_]",
                   MakeArgs(std::move(*out), std::move(index)), out);
  }

  Status ParsePrimary(ExprPtr* out, std::string* name, bool* is_name) {
    switch (Peek().kind) {
      case TokenKind::kDot:
      case TokenKind::kIdent:
        return ParseIdentOrCall(out, name, is_name);
      case TokenKind::kLParen:
        Skip();
        RETURN_IF_ERROR(ParseExpr(out));
        return Expect(TokenKind::kRParen, "')'");
      case TokenKind::kLBracket:
        return ParseList(out);
      case TokenKind::kLBrace:
        return ParseMap(out);
      case TokenKind::kMinus:
        if (!IsNumber(Peek(1).kind)) break;
        return ParseLiteral(out);
      case TokenKind::kInt:
      case TokenKind::kUint:
      case TokenKind::kDouble:
      case TokenKind::kString:
      case TokenKind::kBytes:
      case TokenKind::kTrue:
      case TokenKind::kFalse:
      case TokenKind::kNull:
        return ParseLiteral(out);
      default:
        break;
    }
    return Mismatched("an expression");
  }

  // '.'? IDENT, or '.'? IDENT '(' args ')'.
  [[gnu::noinline]] Status ParseIdentOrCall(ExprPtr* out, std::string* name,
                                            bool* is_name) {
    const int32_t offset = Peek().offset;
    std::string ident;
    if (At(TokenKind::kDot)) {
      Skip();
      if (!At(TokenKind::kIdent)) return Mismatched("IDENTIFIER");
      ident = ".";
    }
    const Token id_token = Take();
    if (IsReserved(id_token.value)) {
      return SyntaxError(id_token.offset,
                         "reserved identifier: " + id_token.value);
    }
    ident += id_token.value;
    if (At(TokenKind::kLParen)) {
      const int32_t open = Skip();
      const int64_t id = factory_.NextId();
      std::vector<ExprPtr> args;
      RETURN_IF_ERROR(ParseArgs(&args));
      return MakeCall(id, open, nullptr, std::move(ident), std::move(args),
                      out);
    }
    *name = ident;
    *is_name = true;
    return Store(factory_.NewIdent(offset, std::move(ident)), out);
  }

  // Number (with a leading '-' folded in), string, bytes, bool and null
  // literals.
  [[gnu::noinline]] Status ParseLiteral(ExprPtr* out) {
    bool negative = false;
    const int32_t offset = Peek().offset;
    if (At(TokenKind::kMinus)) {
      Skip();
      negative = true;
    }
    Token token = Take();
    switch (token.kind) {
      case TokenKind::kString:
        return Store(factory_.NewConst(offset, std::move(token.value)), out);
      case TokenKind::kBytes:
        return Store(
            factory_.NewConst(offset, BytesConstant{std::move(token.value)}),
            out);
      case TokenKind::kTrue:
      case TokenKind::kFalse:
        return Store(factory_.NewConst(offset, token.kind == TokenKind::kTrue),
                     out);
      case TokenKind::kNull:
        return Store(factory_.NewConst(offset, NullConstant{}), out);
      case TokenKind::kDouble:
        break;
      default: {  // kInt, kUint
        std::string_view digits = token.value;
        int base = 10;
        if (digits.size() > 2 && digits[0] == '0' && digits[1] == 'x') {
          base = 16;
          digits.remove_prefix(2);
        }
        uint64_t value;
        if (token.kind == TokenKind::kUint) {
          if (!ParseUnsigned(digits, base, std::numeric_limits<uint64_t>::max(),
                             &value)) {
            return SyntaxError(offset, "invalid uint literal");
          }
          return Store(factory_.NewConst(offset, value), out);
        }
        const uint64_t limit =
            negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
        if (!ParseUnsigned(digits, base, limit, &value)) {
          return SyntaxError(offset, "invalid int literal");
        }
        int64_t signed_value;
        if (!negative) {
          signed_value = static_cast<int64_t>(value);
        } else if (value == uint64_t{1} << 63) {
          signed_value = std::numeric_limits<int64_t>::min();
        } else {
          signed_value = -static_cast<int64_t>(value);
        }
        return Store(factory_.NewConst(offset, signed_value), out);
      }
    }
    const std::string_view spelling = token.value;
    double value = 0;
    const auto [end, ec] = std::from_chars(
        spelling.data(), spelling.data() + spelling.size(), value);
    if (ec == std::errc::result_out_of_range) {
      if (IsOverflow(spelling)) {
        return SyntaxError(offset, "invalid double literal");
      }
      value = 0;  // underflow
    } else if (ec != std::errc() || end != spelling.data() + spelling.size()) {
      return SyntaxError(offset, "invalid double literal");
    }
    return Store(factory_.NewConst(offset, negative ? -value : value), out);
  }

  // After an element or entry: ',' or the closing token (which the caller
  // consumes); a trailing ',' is allowed.
  Status ElementSeparator(TokenKind close, std::string_view expecting) {
    if (At(TokenKind::kComma)) {
      Skip();
      return OkStatus();
    }
    if (!At(close)) return Mismatched(expecting);
    return OkStatus();
  }

  // '[' (elem (',' elem)*)? ','? ']' where elem is '?'? expr.
  [[gnu::noinline]] Status ParseList(ExprPtr* out) {
    const int32_t open = Skip();
    const int64_t id = factory_.NextId();
    ListExpr list;
    if (At(TokenKind::kComma) && Peek(1).kind == TokenKind::kRBracket) Skip();
    while (!At(TokenKind::kRBracket)) {
      bool optional;
      RETURN_IF_ERROR(TakeOptionalMarker("?", &optional));
      if (optional) {
        list.optional_indices.push_back(
            static_cast<int32_t>(list.elements.size()));
      }
      list.elements.emplace_back();
      RETURN_IF_ERROR(ParseExpr(&list.elements.back()));
      RETURN_IF_ERROR(ElementSeparator(TokenKind::kRBracket, "',' or ']'"));
    }
    Skip();
    return Store(factory_.NewWithId(id, open, std::move(list)), out);
  }

  // '{' (entry (',' entry)*)? ','? '}' where entry is '?'? expr ':' expr.
  [[gnu::noinline]] Status ParseMap(ExprPtr* out) {
    const int32_t open = Skip();
    const int64_t id = factory_.NextId();
    MapExpr map;
    if (At(TokenKind::kComma) && Peek(1).kind == TokenKind::kRBrace) Skip();
    while (!At(TokenKind::kRBrace)) {
      MapEntry& entry = map.entries.emplace_back();
      RETURN_IF_ERROR(TakeOptionalMarker("?", &entry.optional));
      RETURN_IF_ERROR(ParseExpr(&entry.key));
      entry.offset = Peek().offset;
      RETURN_IF_ERROR(Expect(TokenKind::kColon, "':'"));
      entry.id = factory_.NextId();
      RETURN_IF_ERROR(ParseExpr(&entry.value));
      RETURN_IF_ERROR(ElementSeparator(TokenKind::kRBrace, "',' or '}'"));
    }
    Skip();
    return Store(factory_.NewWithId(id, open, std::move(map)), out);
  }

  // '{' (field (',' field)*)? ','? '}' after a (dotted) type name, where
  // field is '?'? name ':' expr.
  [[gnu::noinline]] Status ParseStruct(std::string type_name, ExprPtr* out) {
    const int32_t open = Skip();
    const int64_t id = factory_.NextId();
    StructExpr message;
    message.type_name = std::move(type_name);
    if (At(TokenKind::kComma) && Peek(1).kind == TokenKind::kRBrace) Skip();
    while (!At(TokenKind::kRBrace)) {
      StructField& field = message.fields.emplace_back();
      RETURN_IF_ERROR(TakeOptionalMarker("?", &field.optional));
      if (!At(TokenKind::kIdent) && !At(TokenKind::kEscapedIdent)) {
        return Mismatched("IDENTIFIER");
      }
      field.name = Take().value;
      field.offset = Peek().offset;
      RETURN_IF_ERROR(Expect(TokenKind::kColon, "':'"));
      field.id = factory_.NextId();
      RETURN_IF_ERROR(ParseExpr(&field.value));
      RETURN_IF_ERROR(ElementSeparator(TokenKind::kRBrace, "',' or '}'"));
    }
    Skip();
    return Store(factory_.NewWithId(id, open, std::move(message)), out);
  }

  // (expr (',' expr)*)? ')' -- after the '('.
  Status ParseArgs(std::vector<ExprPtr>* args) {
    if (At(TokenKind::kRParen)) {
      Skip();
      return OkStatus();
    }
    while (true) {
      args->emplace_back();
      RETURN_IF_ERROR(ParseExpr(&args->back()));
      if (At(TokenKind::kComma)) {
        Skip();
      } else if (At(TokenKind::kRParen)) {
        Skip();
        return OkStatus();
      } else {
        return Mismatched("',' or ')'");
      }
    }
  }

  // A call, or its macro expansion.
  [[gnu::noinline]] Status MakeCall(int64_t id, int32_t offset, ExprPtr target,
                                    std::string function,
                                    std::vector<ExprPtr> args, ExprPtr* out) {
    if (options_.enable_macros) {
      ExprPtr expanded;
      RETURN_IF_ERROR(
          Store(internal::ExpandMacro(factory_, offset, function, target, args),
                &expanded));
      if (expanded) {
        *out = std::move(expanded);
        return OkStatus();
      }
    }
    return Store(
        factory_.NewWithId(
            id, offset,
            CallExpr{std::move(target), std::move(function), std::move(args)}),
        out);
  }

  const ParseOptions& options_;
  Lexer lexer_;
  static constexpr size_t kLookahead = 4;  // the grammar needs 2
  Token ring_[kLookahead];
  size_t head_ = 0;   // index of the current token in ring_
  size_t count_ = 0;  // tokens buffered from head_ on
  ExprFactory factory_;
  int depth_ = 0;
};

}  // namespace

StatusOr<ParsedExpr> Parse(std::string_view text, const ParseOptions& options) {
  if (text.size() > options.max_expression_bytes ||
      text.size() >
          static_cast<size_t>(std::numeric_limits<int32_t>::max() / 2)) {
    return InvalidArgumentError(
        "ERROR: <input>:1:1: expression size exceeds limit: size: " +
        std::to_string(text.size()) + " bytes, limit: " +
        std::to_string(options.max_expression_bytes) + " bytes");
  }
  auto source = std::make_shared<const Source>(std::string(text));
  const size_t invalid = internal::FindInvalidUtf8(text);
  if (invalid != text.size()) {
    return InvalidArgumentError(
        FormatLocatedError(*source, static_cast<int32_t>(invalid),
                           "Syntax error: invalid UTF-8 in source text"));
  }
  Parser parser(*source, options);
  ASSIGN_OR_RETURN(ExprPtr root, parser.ParseAll());
  ParsedExpr parsed;
  parsed.root = std::move(root);
  parsed.source = std::move(source);
  parsed.max_id = parser.max_id();
  return parsed;
}

}  // namespace dralloc::cel
