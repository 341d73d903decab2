#include "cel/lib/regex_library.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cel/common/types.h"
#include "fmt/format.h"
#include "re2/re2.h"

namespace dralloc::cel {
namespace {

RE2::Options RegexOptions() {
  RE2::Options options;
  options.set_log_errors(false);
  return options;
}

// The prepared regex of a constant pattern, or a freshly compiled one.
class RegexRef {
 public:
  RegexRef(const CallContext& ctx, std::string_view pattern) {
    if (ctx.prepared != nullptr) {
      regex_ = static_cast<const RE2*>(ctx.prepared);
    } else {
      owned_ = std::make_unique<RE2>(pattern, RegexOptions());
      regex_ = owned_.get();
    }
  }
  bool ok() const { return regex_->ok(); }
  Value Error() const {
    return Value::Error(fmt::format("Illegal regex: {}", regex_->error()));
  }
  const RE2& operator*() const { return *regex_; }

 private:
  const RE2* regex_ = nullptr;
  std::unique_ptr<RE2> owned_;
};

Value MatchValue(const Value& source, std::string_view match) {
  if (match.size() == source.string_view().size()) return source;
  if (match.empty()) return Value::BorrowedString("");
  return Value::String(std::string(match));
}

Value Find(const CallContext& ctx, std::span<const Value> args) {
  RegexRef re(ctx, args[1].string_view());
  if (!re.ok()) return re.Error();
  std::string_view text = args[0].string_view();
  re2::StringPiece match;
  if (!(*re).Match(text, 0, text.size(), RE2::UNANCHORED, &match, 1)) {
    return Value::BorrowedString("");
  }
  return MatchValue(args[0], std::string_view(match.data(), match.size()));
}

size_t RuneWidth(std::string_view s, size_t i) {
  size_t j = i + 1;
  while (j < s.size() && (static_cast<unsigned char>(s[j]) & 0xC0) == 0x80) ++j;
  return j - i;
}

// Go's Regexp.FindAllString: successive non-overlapping matches; an empty
// match right after the previous match is skipped.
Value FindAllImpl(const CallContext& ctx, std::span<const Value> args,
                  int64_t limit) {
  RegexRef re(ctx, args[1].string_view());
  if (!re.ok()) return re.Error();
  std::string_view text = args[0].string_view();
  std::vector<Value> matches;
  size_t pos = 0;
  size_t prev_end = std::string_view::npos;
  while ((limit < 0 || static_cast<int64_t>(matches.size()) < limit) &&
         pos <= text.size()) {
    re2::StringPiece m;
    if (!(*re).Match(text, pos, text.size(), RE2::UNANCHORED, &m, 1)) break;
    size_t begin = static_cast<size_t>(m.data() - text.data());
    size_t end = begin + m.size();
    bool accept = true;
    if (end == pos) {
      // An empty match: skip it when it abuts the previous match.
      if (begin == prev_end) accept = false;
      pos += pos < text.size() ? RuneWidth(text, pos) : 1;
    } else {
      pos = end;
    }
    prev_end = end;
    if (accept) {
      matches.push_back(MatchValue(args[0], text.substr(begin, end - begin)));
    }
  }
  if (matches.empty()) return Value::BorrowedList(&EmptyList());
  return Value::List(new VectorList(std::move(matches)));
}

Value FindAll(const CallContext& ctx, std::span<const Value> args) {
  return FindAllImpl(ctx, args, -1);
}

Value FindAllLimit(const CallContext& ctx, std::span<const Value> args) {
  return FindAllImpl(ctx, args, args[2].int_value());
}

StatusOr<std::shared_ptr<const void>> PreparePattern(
    std::span<const Value* const> constant_args) {
  if (constant_args.size() < 2 || constant_args[1] == nullptr ||
      constant_args[1]->kind() != ValueKind::kString) {
    return std::shared_ptr<const void>();
  }
  std::string_view pattern = constant_args[1]->string_view();
  auto re = std::make_shared<const RE2>(pattern, RegexOptions());
  if (!re->ok()) {
    return InvalidArgumentError(fmt::format(
        "invalid regular expression '{}': {}", pattern, re->error()));
  }
  return std::shared_ptr<const void>(std::move(re));
}

// Like `matches`: ceil((1 + size(s)) * 0.1) * ceil(size(re) * 0.25).
uint64_t FindCost(std::span<const Value> args, const Value&) {
  return SaturatingMul(CeilCost(1 + ActualSize(args[0]), 0.1),
                       CeilCost(ActualSize(args[1]), 0.25));
}

CostEstimate FindEstimate(std::span<const SizeEstimate> args) {
  return {SaturatingMul(CeilCost(SaturatingAdd(args[0].min, 1), 0.1),
                        CeilCost(args[1].min, 0.25)),
          SaturatingMul(CeilCost(SaturatingAdd(args[0].max, 1), 0.1),
                        CeilCost(args[1].max, 0.25))};
}

SizeEstimate FindSize(std::span<const SizeEstimate> args) {
  return {0, args[0].max};
}

}  // namespace

void RegisterRegexLibrary(FunctionRegistry& registry) {
  const Type s = Type::String();
  registry.Add({.id = "string_find_string",
                .function = "find",
                .member = true,
                .params = {s, s},
                .result = s,
                .impl = Find,
                .runtime_cost = FindCost,
                .estimate_cost = FindEstimate,
                .estimate_size = FindSize,
                .prepare = PreparePattern});
  registry.Add({.id = "string_find_all_string",
                .function = "findAll",
                .member = true,
                .params = {s, s},
                .result = Type::List(s),
                .impl = FindAll,
                .runtime_cost = FindCost,
                .estimate_cost = FindEstimate,
                .estimate_size = FindSize,
                .prepare = PreparePattern});
  registry.Add({.id = "string_find_all_string_int",
                .function = "findAll",
                .member = true,
                .params = {s, s, Type::Int()},
                .result = Type::List(s),
                .impl = FindAllLimit,
                .runtime_cost = FindCost,
                .estimate_cost = FindEstimate,
                .estimate_size = FindSize,
                .prepare = PreparePattern});
}

}  // namespace dralloc::cel
