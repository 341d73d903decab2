#include "apiserver/selectors.h"

#include <fmt/format.h>

#include <algorithm>

namespace dralloc::apiserver {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Splits on commas that are not inside parentheses.
std::vector<std::string_view> SplitTerms(std::string_view text) {
  std::vector<std::string_view> terms;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      terms.push_back(Trim(text.substr(start, i - start)));
      start = i + 1;
    } else if (text[i] == '(') {
      ++depth;
    } else if (text[i] == ')') {
      --depth;
    }
  }
  return terms;
}

bool ValidLabelPart(std::string_view s) {
  if (s.empty() || s.size() > 316) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' ||
           c == '_' || c == '.' || c == '/';
  });
}

bool ValidLabelValue(std::string_view s) {
  return s.empty() || ValidLabelPart(s);
}

}  // namespace

StatusOr<LabelSelector> LabelSelector::Parse(std::string_view text) {
  LabelSelector selector;
  if (Trim(text).empty()) return selector;
  for (std::string_view term : SplitTerms(text)) {
    const auto bad = [&](std::string_view why) {
      return InvalidArgumentError(
          fmt::format("unable to parse requirement: \"{}\": {}", term, why));
    };
    if (term.empty()) return bad("empty term");
    Requirement r;
    if (term.front() == '!') {
      r.key = std::string(Trim(term.substr(1)));
      r.op = Op::kNotExists;
    } else if (size_t pos = term.find(" notin ");
               pos != std::string_view::npos ||
               term.find(" in ") != std::string_view::npos) {
      const bool not_in = pos != std::string_view::npos;
      if (!not_in) pos = term.find(" in ");
      r.key = std::string(Trim(term.substr(0, pos)));
      r.op = not_in ? Op::kNotIn : Op::kIn;
      std::string_view set = Trim(term.substr(pos + (not_in ? 7 : 4)));
      if (set.size() < 2 || set.front() != '(' || set.back() != ')') {
        return bad("expected a parenthesised set of values");
      }
      set = set.substr(1, set.size() - 2);
      for (std::string_view v : SplitTerms(set)) {
        if (!ValidLabelValue(v)) return bad("invalid label value");
        r.values.emplace_back(v);
      }
    } else if (size_t ne = term.find("!="); ne != std::string_view::npos) {
      r.key = std::string(Trim(term.substr(0, ne)));
      r.op = Op::kNotIn;
      r.values.emplace_back(Trim(term.substr(ne + 2)));
    } else if (size_t eq = term.find('='); eq != std::string_view::npos) {
      r.key = std::string(Trim(term.substr(0, eq)));
      r.op = Op::kIn;
      size_t value_start = eq + 1;
      if (value_start < term.size() && term[value_start] == '=') ++value_start;
      r.values.emplace_back(Trim(term.substr(value_start)));
    } else {
      r.key = std::string(term);
      r.op = Op::kExists;
    }
    if (!ValidLabelPart(r.key)) return bad("invalid label key");
    for (const std::string& v : r.values) {
      if (!ValidLabelValue(v)) return bad("invalid label value");
    }
    selector.requirements_.push_back(std::move(r));
  }
  return selector;
}

bool LabelSelector::Matches(
    const std::map<std::string, std::string>& labels) const {
  for (const Requirement& r : requirements_) {
    auto it = labels.find(r.key);
    const bool has = it != labels.end();
    switch (r.op) {
      case Op::kExists:
        if (!has) return false;
        break;
      case Op::kNotExists:
        if (has) return false;
        break;
      case Op::kIn:
        if (!has || std::find(r.values.begin(), r.values.end(), it->second) ==
                        r.values.end()) {
          return false;
        }
        break;
      case Op::kNotIn:
        if (has && std::find(r.values.begin(), r.values.end(), it->second) !=
                       r.values.end()) {
          return false;
        }
        break;
    }
  }
  return true;
}

StatusOr<FieldSelector> FieldSelector::Parse(
    std::string_view text, std::span<const std::string_view> supported) {
  FieldSelector selector;
  if (Trim(text).empty()) return selector;
  // Split on unescaped commas, then on the first unescaped operator.
  std::vector<std::string> terms(1);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      terms.back() += text[i];
      terms.back() += text[++i];
    } else if (text[i] == ',') {
      terms.emplace_back();
    } else {
      terms.back() += text[i];
    }
  }
  for (const std::string& term : terms) {
    Requirement r;
    size_t op = std::string::npos;
    size_t op_len = 0;
    for (size_t i = 0; i < term.size(); ++i) {
      if (term[i] == '\\') {
        ++i;
        continue;
      }
      if (term.compare(i, 2, "!=") == 0) {
        op = i, op_len = 2, r.equals = false;
        break;
      }
      if (term.compare(i, 2, "==") == 0) {
        op = i, op_len = 2, r.equals = true;
        break;
      }
      if (term[i] == '=') {
        op = i, op_len = 1, r.equals = true;
        break;
      }
    }
    if (op == std::string::npos) {
      return InvalidArgumentError(
          fmt::format("invalid field selector: \"{}\": expected an operator "
                      "(=, == or !=)",
                      term));
    }
    r.field = std::string(Trim(std::string_view(term).substr(0, op)));
    std::string_view raw = std::string_view(term).substr(op + op_len);
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '\\' && i + 1 < raw.size()) ++i;
      r.value += raw[i];
    }
    const bool known = r.field == "metadata.name" ||
                       r.field == "metadata.namespace" ||
                       std::find(supported.begin(), supported.end(), r.field) !=
                           supported.end();
    if (!known) {
      return InvalidArgumentError(
          fmt::format("field label not supported: {}", r.field));
    }
    selector.requirements_.push_back(std::move(r));
  }
  return selector;
}

bool FieldSelector::Matches(
    const std::function<std::string(std::string_view field)>& field_value)
    const {
  for (const Requirement& r : requirements_) {
    if ((field_value(r.field) == r.value) != r.equals) return false;
  }
  return true;
}

std::optional<std::string> FieldSelector::RequiredValue(
    std::string_view field) const {
  for (const Requirement& r : requirements_) {
    if (r.equals && r.field == field) return r.value;
  }
  return std::nullopt;
}

}  // namespace dralloc::apiserver
