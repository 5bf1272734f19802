#include "tools/xd5/src/build_file.h"

#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace clada::xd5 {
namespace {

struct Token {
  enum class Type { kString, kName, kNumber, kOp };
  Type type;
  std::string text;  // decoded value for strings
  int line;
};

bool IsNameStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool IsStringPrefix(absl::string_view s) {
  std::string lower;
  for (char c : s) lower += static_cast<char>(std::tolower(c));
  return lower == "r" || lower == "b" || lower == "rb" || lower == "br";
}

// Reads a string literal starting at text[*pos] (the opening quote).
absl::Status ReadString(absl::string_view text, size_t* pos, bool raw,
                        int* line, std::string* out) {
  const int start_line = *line;
  const char quote = text[*pos];
  const bool triple = text.substr(*pos, 3) == std::string(3, quote);
  *pos += triple ? 3 : 1;
  while (*pos < text.size()) {
    char c = text[*pos];
    if (c == quote &&
        (!triple || text.substr(*pos, 3) == std::string(3, quote))) {
      *pos += triple ? 3 : 1;
      return absl::OkStatus();
    }
    if (c == '\n') {
      if (!triple) break;
      ++*line;
    }
    if (c == '\\' && *pos + 1 < text.size()) {
      char e = text[*pos + 1];
      *pos += 2;
      if (e == '\n') ++*line;
      if (raw) {
        *out += c;
        *out += e;
        continue;
      }
      switch (e) {
        case 'n':
          *out += '\n';
          break;
        case 't':
          *out += '\t';
          break;
        case 'r':
          *out += '\r';
          break;
        case '\\':
          *out += '\\';
          break;
        case '\'':
          *out += '\'';
          break;
        case '"':
          *out += '"';
          break;
        case '\n':
          break;
        default:
          *out += '\\';
          *out += e;
      }
      continue;
    }
    *out += c;
    ++*pos;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("line ", start_line, ": unterminated string"));
}

absl::StatusOr<std::vector<Token>> Tokenize(absl::string_view text) {
  static const char* const kTwoCharOps[] = {"==", "!=", "<=", ">=", "**", "//",
                                            "+=", "-=", "*=", "/=", "%=", "|=",
                                            "&=", "^=", "->", "<<", ">>"};
  std::vector<Token> tokens;
  int line = 1;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
               c == '\\') {  // '\\' here is a line continuation
      ++i;
    } else if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '"' || c == '\'') {
      Token t{Token::Type::kString, "", line};
      absl::Status s = ReadString(text, &i, false, &line, &t.text);
      if (!s.ok()) return s;
      tokens.push_back(std::move(t));
    } else if (IsNameStart(c)) {
      size_t j = i;
      while (j < text.size() && IsNameChar(text[j])) ++j;
      absl::string_view word = text.substr(i, j - i);
      if (j < text.size() && (text[j] == '"' || text[j] == '\'') &&
          IsStringPrefix(word)) {
        bool raw = word.find_first_of("rR") != absl::string_view::npos;
        Token t{Token::Type::kString, "", line};
        i = j;
        absl::Status s = ReadString(text, &i, raw, &line, &t.text);
        if (!s.ok()) return s;
        tokens.push_back(std::move(t));
      } else {
        tokens.push_back({Token::Type::kName, std::string(word), line});
        i = j;
      }
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < text.size() && (IsNameChar(text[j]) || text[j] == '.')) ++j;
      tokens.push_back(
          {Token::Type::kNumber, std::string(text.substr(i, j - i)), line});
      i = j;
    } else {
      std::string op(1, c);
      for (const char* two : kTwoCharOps) {
        if (text.substr(i, 2) == two) op = two;
      }
      tokens.push_back({Token::Type::kOp, op, line});
      i += op.size();
    }
  }
  return tokens;
}

bool IsOp(const Token& t, absl::string_view op) {
  return t.type == Token::Type::kOp && t.text == op;
}
bool IsOpen(const Token& t) {
  return IsOp(t, "(") || IsOp(t, "[") || IsOp(t, "{");
}
bool IsClose(const Token& t) {
  return IsOp(t, ")") || IsOp(t, "]") || IsOp(t, "}");
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  // Pairs every bracket with its partner; fails on imbalance.
  absl::Status MatchBrackets() {
    match_.assign(t_.size(), -1);
    std::vector<size_t> open;
    for (size_t i = 0; i < t_.size(); ++i) {
      if (IsOpen(t_[i])) {
        open.push_back(i);
      } else if (IsClose(t_[i])) {
        if (open.empty()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "line ", t_[i].line, ": unexpected '", t_[i].text, "'"));
        }
        size_t o = open.back();
        open.pop_back();
        static const std::string kPairs = "()[]{}";
        if (kPairs[kPairs.find(t_[o].text) + 1] != t_[i].text[0]) {
          return absl::InvalidArgumentError(absl::StrCat(
              "line ", t_[i].line, ": '", t_[i].text, "' does not match '",
              t_[o].text, "' opened on line ", t_[o].line));
        }
        match_[o] = static_cast<int>(i);
        match_[i] = static_cast<int>(o);
      }
    }
    if (!open.empty()) {
      const Token& t = t_[open.back()];
      return absl::InvalidArgumentError(
          absl::StrCat("line ", t.line, ": unclosed '", t.text, "'"));
    }
    return absl::OkStatus();
  }

  std::vector<RuleCall> TopLevelCalls() {
    std::vector<RuleCall> calls;
    size_t i = 0;
    while (i < t_.size()) {
      size_t name_end = DottedNameEnd(i);
      if (name_end > i && name_end < t_.size() && IsOp(t_[name_end], "(")) {
        size_t close = static_cast<size_t>(match_[name_end]);
        Expr e = Interpret(i, close + 1);
        if (e.kind == Expr::Kind::kCall) {
          RuleCall call;
          call.kind = e.text;
          call.line = e.line;
          call.kwargs = std::move(e.kwargs);
          calls.push_back(std::move(call));
        }
        i = close + 1;
      } else if (IsOpen(t_[i])) {
        i = static_cast<size_t>(match_[i]) + 1;  // not top level inside
      } else {
        ++i;
      }
    }
    return calls;
  }

 private:
  // End of a dotted name starting at I (I itself when there is none).
  size_t DottedNameEnd(size_t i) const {
    if (i >= t_.size() || t_[i].type != Token::Type::kName) return i;
    size_t j = i + 1;
    while (j + 1 < t_.size() && IsOp(t_[j], ".") &&
           t_[j + 1].type == Token::Type::kName) {
      j += 2;
    }
    return j;
  }

  std::string JoinNames(size_t b, size_t e) const {
    std::string s;
    for (size_t i = b; i < e; ++i) s += t_[i].text;
    return s;
  }

  // Indexes in [B, E) of tokens outside any bracket that satisfy PRED.
  template <typename Pred>
  std::vector<size_t> TopLevel(size_t b, size_t e, Pred pred) const {
    std::vector<size_t> out;
    for (size_t i = b; i < e; ++i) {
      if (pred(t_[i])) out.push_back(i);
      if (IsOpen(t_[i])) i = static_cast<size_t>(match_[i]);
    }
    return out;
  }

  // Splits [B, E) at top-level commas; empty trailing segments are dropped.
  std::vector<std::pair<size_t, size_t>> SplitCommas(size_t b, size_t e) const {
    std::vector<std::pair<size_t, size_t>> parts;
    size_t start = b;
    for (size_t c :
         TopLevel(b, e, [](const Token& t) { return IsOp(t, ","); })) {
      parts.push_back({start, c});
      start = c + 1;
    }
    if (start < e) parts.push_back({start, e});
    return parts;
  }

  Expr Other(size_t b, std::string what) const {
    Expr x;
    x.kind = Expr::Kind::kOther;
    x.text = std::move(what);
    x.line = b < t_.size() ? t_[b].line : 0;
    return x;
  }

  Expr Interpret(size_t b, size_t e) const {
    if (b >= e) return Other(b, "empty expression");
    for (size_t i : TopLevel(b, e, [](const Token&) { return true; })) {
      const Token& t = t_[i];
      if (t.type == Token::Type::kName) {
        if (t.text == "for") return Other(b, "comprehension");
        if (t.text == "if") return Other(b, "conditional expression");
        if (t.text == "and" || t.text == "or" || t.text == "not" ||
            t.text == "in" || t.text == "lambda") {
          return Other(b, "'" + t.text + "' expression");
        }
      } else if (t.type == Token::Type::kOp && !IsOpen(t) && !IsOp(t, "+") &&
                 !IsOp(t, ".")) {
        return Other(b, "'" + t.text + "' expression");
      }
    }
    std::vector<size_t> plus =
        TopLevel(b, e, [](const Token& t) { return IsOp(t, "+"); });
    if (!plus.empty()) {
      Expr x;
      x.kind = Expr::Kind::kPlus;
      x.line = t_[b].line;
      size_t start = b;
      plus.push_back(e);
      for (size_t p : plus) {
        x.items.push_back(Interpret(start, p));
        start = p + 1;
      }
      return x;
    }
    const Token& first = t_[b];
    if (first.type == Token::Type::kString) {
      Expr x;
      x.kind = Expr::Kind::kString;
      x.line = first.line;
      for (size_t i = b; i < e; ++i) {
        if (t_[i].type != Token::Type::kString) return Other(b, "expression");
        x.text += t_[i].text;
      }
      return x;
    }
    if (IsOpen(first) && static_cast<size_t>(match_[b]) == e - 1) {
      if (first.text == "{") return Other(b, "dict");
      std::vector<std::pair<size_t, size_t>> parts = SplitCommas(b + 1, e - 1);
      if (first.text == "(") {
        if (parts.size() == 1 && TopLevel(b + 1, e - 1, [](const Token& t) {
                                   return IsOp(t, ",");
                                 }).empty()) {
          return Interpret(b + 1, e - 1);
        }
        return Other(b, "tuple");
      }
      Expr x;
      x.kind = Expr::Kind::kList;
      x.line = first.line;
      for (const auto& [pb, pe] : parts) x.items.push_back(Interpret(pb, pe));
      return x;
    }
    size_t name_end = DottedNameEnd(b);
    if (name_end == e) {
      Expr x;
      x.kind = Expr::Kind::kName;
      x.text = JoinNames(b, e);
      x.line = first.line;
      return x;
    }
    if (name_end > b && IsOp(t_[name_end], "(") &&
        static_cast<size_t>(match_[name_end]) == e - 1) {
      Expr x;
      x.kind = Expr::Kind::kCall;
      x.text = JoinNames(b, name_end);
      x.line = first.line;
      for (const auto& [pb, pe] : SplitCommas(name_end + 1, e - 1)) {
        if (pe - pb >= 2 && t_[pb].type == Token::Type::kName &&
            IsOp(t_[pb + 1], "=")) {
          x.kwargs.push_back({t_[pb].text, Interpret(pb + 2, pe)});
        } else {
          x.items.push_back(Interpret(pb, pe));
        }
      }
      return x;
    }
    if (first.type == Token::Type::kNumber && e == b + 1) {
      return Other(b, "number");
    }
    return Other(b, "expression");
  }

  std::vector<Token> t_;
  std::vector<int> match_;
};

absl::Status Unsupported(const Expr& e, absl::string_view attr,
                         absl::string_view rule) {
  std::string what;
  switch (e.kind) {
    case Expr::Kind::kCall:
      what = absl::StrCat(e.text, "()");
      break;
    case Expr::Kind::kName:
      what = absl::StrCat("the variable ", e.text);
      break;
    case Expr::Kind::kString:
      what = "a bare string";
      break;
    default:
      what = absl::StrCat("a ", e.text);
  }
  return absl::UnimplementedError(absl::StrCat(
      "line ", e.line, ": ", attr, " of \"", rule, "\" uses ", what,
      ", which xd5 does not evaluate; list them as string "
      "literals"));
}

absl::Status Flatten(const Expr& e, absl::string_view attr,
                     absl::string_view rule, std::vector<std::string>* out) {
  if (e.kind == Expr::Kind::kList) {
    for (const Expr& item : e.items) {
      if (item.kind != Expr::Kind::kString)
        return Unsupported(item, attr, rule);
      out->push_back(item.text);
    }
    return absl::OkStatus();
  }
  if (e.kind == Expr::Kind::kPlus) {
    for (const Expr& operand : e.items) {
      absl::Status s = Flatten(operand, attr, rule, out);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  return Unsupported(e, attr, rule);
}

bool KindMatches(absl::string_view callee, absl::string_view kind) {
  return callee == kind || absl::EndsWith(callee, absl::StrCat(".", kind));
}

}  // namespace

const Expr* RuleCall::Find(absl::string_view attr) const {
  for (const auto& [key, value] : kwargs) {
    if (key == attr) return &value;
  }
  return nullptr;
}

std::string RuleCall::Name() const {
  const Expr* name = Find("name");
  if (name == nullptr || name->kind != Expr::Kind::kString) return "";
  return name->text;
}

absl::StatusOr<std::vector<RuleCall>> ParseBuildFile(absl::string_view text) {
  absl::StatusOr<std::vector<Token>> tokens = Tokenize(text);
  if (!tokens.ok()) return tokens.status();
  Parser parser(*std::move(tokens));
  absl::Status s = parser.MatchBrackets();
  if (!s.ok()) return s;
  return parser.TopLevelCalls();
}

const RuleCall* FindRule(const std::vector<RuleCall>& rules,
                         absl::string_view kind, absl::string_view name) {
  for (const RuleCall& r : rules) {
    if (KindMatches(r.kind, kind) && r.Name() == name) return &r;
  }
  return nullptr;
}

const RuleCall* FindAnyRule(const std::vector<RuleCall>& rules,
                            absl::string_view name) {
  for (const RuleCall& r : rules) {
    if (r.kind != "load" && r.Name() == name) return &r;
  }
  return nullptr;
}

absl::StatusOr<std::vector<std::string>> StringListAttr(
    const RuleCall& rule, absl::string_view attr) {
  std::vector<std::string> out;
  const Expr* e = rule.Find(attr);
  if (e == nullptr) return out;
  absl::Status s = Flatten(*e, attr, rule.Name(), &out);
  if (!s.ok()) return s;
  return out;
}

}  // namespace clada::xd5
