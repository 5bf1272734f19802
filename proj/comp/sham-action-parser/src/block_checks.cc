#include "proj/comp/sham-action-parser/src/block_checks.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "proj/comp/sham-action-parser/src/text_util.h"

namespace clada::sham_action_parser {
namespace internal {
namespace {

// Names longer than this get no suggestion (edit distance is quadratic).
constexpr size_t kMaxSuggestableLength = 64;

// Unknown keys named in an "ignored unknown parameters" warning; the rest
// are counted.
constexpr size_t kMaxListedIgnoredKeys = 10;

// The value as written when short and printable, else quoted and shortened.
std::string ShowName(absl::string_view value) {
  const bool plain = !value.empty() && value.size() <= kMaxSuggestableLength &&
                     IsValidUtf8(value) &&
                     std::none_of(value.begin(), value.end(), [](char c) {
                       return static_cast<unsigned char>(c) < 0x20 || c == '"';
                     });
  return plain ? std::string(value) : QuoteForMessage(value);
}

// Trimmed, lower case, '-' and ' ' as '_'; with `split_humps` also a '_'
// at each camelCase hump: "writeFile", "XMLFile", "file-write" give
// "write_file", "xml_file", "file_write".
std::string NormalizeName(absl::string_view name, bool split_humps) {
  name = absl::StripAsciiWhitespace(name);
  std::string out;
  out.reserve(name.size() + (split_humps ? name.size() / 2 : 0));
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '-' || c == ' ') {
      out.push_back('_');
      continue;
    }
    if (split_humps && i > 0 && absl::ascii_isupper(c)) {
      const char prev = name[i - 1];
      const bool next_lower =
          i + 1 < name.size() && absl::ascii_islower(name[i + 1]);
      // "eF" in writeFile, "2F" in v2File, "LF" in XMLFile (an acronym ends).
      if (absl::ascii_islower(prev) || absl::ascii_isdigit(prev) ||
          (absl::ascii_isupper(prev) && next_lower)) {
        out.push_back('_');
      }
    }
    out.push_back(absl::ascii_tolower(c));
  }
  return out;
}

// The words of a name in sorted order: write_file and file_write match.
std::vector<std::string> SortedWords(absl::string_view normalized) {
  std::vector<std::string> words =
      absl::StrSplit(normalized, '_', absl::SkipEmpty());
  std::sort(words.begin(), words.end());
  return words;
}

// The LLM-runnable action an unknown name most likely meant, or nullptr:
// same name in another case or separator (camelCase included), a known
// alias, the same words in another order, or a small edit distance. Each
// step tries the name lowered as written, then split at its camelCase humps
// (so a stray capital, "FIle_write", still reads as one word).
const ActionDefinition* SuggestAction(absl::string_view name,
                                      const ActionSchema& schema) {
  if (name.size() > kMaxSuggestableLength) return nullptr;
  std::vector<std::string> forms = {NormalizeName(name, false)};
  std::string humps = NormalizeName(name, true);
  if (humps != forms.front()) forms.push_back(std::move(humps));
  std::vector<const ActionDefinition*> candidates;
  for (const ActionDefinition& a : schema.actions) {
    if (a.IsLlmAccessible()) candidates.push_back(&a);
  }
  for (const std::string& wanted : forms) {
    for (const ActionDefinition* a : candidates) {
      if (a->name == wanted) return a;
    }
  }
  for (const std::string& wanted : forms) {
    for (const ActionDefinition* a : candidates) {
      for (const std::string& alias : a->aliases) {
        if (alias == wanted) return a;
      }
    }
  }
  for (const std::string& wanted : forms) {
    const std::vector<std::string> words = SortedWords(wanted);
    for (const ActionDefinition* a : candidates) {
      if (!words.empty() && SortedWords(a->name) == words) return a;
    }
  }
  const ActionDefinition* best = nullptr;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (const std::string& wanted : forms) {
    const size_t limit = wanted.size() <= 4 ? 1 : wanted.size() <= 11 ? 2 : 3;
    for (const ActionDefinition* a : candidates) {
      const size_t d = EditDistance(wanted, a->name);
      if (d <= limit && d < best_distance) {
        best = a;
        best_distance = d;
      }
    }
  }
  return best;
}

// The LLM-runnable actions nearest to `name` by edit distance, at most
// `count`, nearest first (ties in schema order).
std::vector<absl::string_view> NearestActions(absl::string_view name,
                                              const ActionSchema& schema,
                                              size_t count) {
  const std::string wanted = NormalizeName(name.substr(0, kMaxSuggestableLength),
                                           /*split_humps=*/true);
  std::vector<std::pair<size_t, absl::string_view>> ranked;
  for (const ActionDefinition& a : schema.actions) {
    if (a.IsLlmAccessible())
      ranked.emplace_back(EditDistance(wanted, a.name), a.name);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<absl::string_view> out;
  for (size_t i = 0; i < ranked.size() && i < count; ++i)
    out.push_back(ranked[i].second);
  return out;
}

// The parameter of `definition` an unknown key most likely meant, or
// nullptr: a small edit distance (old_txt, oldText), or the parameter's
// words all in the key (file_path for path). Only a single best match.
const ParameterDef* SuggestParameter(absl::string_view key,
                                     const ActionDefinition& definition) {
  if (key.size() > kMaxSuggestableLength) return nullptr;
  const std::string wanted = NormalizeName(key, /*split_humps=*/true);
  const size_t limit = wanted.size() <= 4 ? 1 : wanted.size() <= 11 ? 2 : 3;
  const ParameterDef* best = nullptr;
  size_t best_distance = std::numeric_limits<size_t>::max();
  bool tie = false;
  for (const ParameterDef& p : definition.parameters) {
    const size_t d = EditDistance(wanted, p.name);
    if (d > limit) continue;
    if (d < best_distance) {
      best = &p;
      best_distance = d;
      tie = false;
    } else if (d == best_distance) {
      tie = true;
    }
  }
  if (best != nullptr && !tie) return best;
  const std::vector<std::string> words = SortedWords(wanted);
  const ParameterDef* contained = nullptr;
  for (const ParameterDef& p : definition.parameters) {
    const std::vector<std::string> own = SortedWords(p.name);
    if (own.empty() || own.size() >= words.size()) continue;
    if (!std::includes(words.begin(), words.end(), own.begin(), own.end()))
      continue;
    if (contained != nullptr) return nullptr;  // two fit: say nothing
    contained = &p;
  }
  return contained;
}

std::string LlmActionNames(const ActionSchema& schema) {
  std::vector<absl::string_view> names;
  for (const ActionDefinition& a : schema.actions) {
    if (a.IsLlmAccessible()) names.push_back(a.name);
  }
  return absl::StrJoin(names, ", ");
}

std::string ParameterNames(const ActionDefinition& definition) {
  if (definition.parameters.empty())
    return absl::StrCat(definition.name, " takes no parameters");
  std::vector<absl::string_view> names;
  for (const ParameterDef& p : definition.parameters) names.push_back(p.name);
  return absl::StrCat(definition.name, " takes: ", absl::StrJoin(names, ", "));
}

Issue TypeIssue(std::string message, std::string fix) {
  return Issue{"type", std::move(message), std::move(fix)};
}

std::string ParamLabel(const ParameterDef& p) {
  return absl::StrCat("Parameter '", p.name, "'");
}

// "N" or "N-M" (spaces around the parts allowed) as canonical text, or nullopt.
std::optional<std::string> CanonicalLineRange(absl::string_view text) {
  std::vector<absl::string_view> parts =
      absl::StrSplit(text, absl::MaxSplits('-', 1));
  std::vector<int64_t> numbers;
  for (absl::string_view part : parts) {
    part = absl::StripAsciiWhitespace(part);
    int64_t n = 0;
    if (part.empty() || part[0] == '+' ||
        ParseDecimalInteger(part, &n) != IntegerParse::kOk || n < 1) {
      return std::nullopt;
    }
    numbers.push_back(n);
  }
  if (numbers.size() == 2) {
    if (numbers[1] < numbers[0]) return std::nullopt;
    return absl::StrCat(numbers[0], "-", numbers[1]);
  }
  return absl::StrCat(numbers[0]);
}

// Converts one value; on failure appends an issue and returns nullopt.
std::optional<core::Json> ConvertValue(const ParameterDef& p,
                                       std::string value,
                                       std::vector<Issue>* issues) {
  if (p.type == ParamType::kInteger) {
    int64_t n = 0;
    switch (ParseDecimalInteger(value, &n)) {
      case IntegerParse::kOk:
        return core::Json(n);
      case IntegerParse::kOutOfRange:
        issues->push_back(TypeIssue(
            absl::StrCat(ParamLabel(p),
                         " is out of range: ", QuoteForMessage(value)),
            absl::StrCat("Use a whole number that fits in 64 bits, e.g. ",
                         p.name, " = \"3\"")));
        return std::nullopt;
      case IntegerParse::kNotInteger:
        issues->push_back(TypeIssue(
            absl::StrCat(ParamLabel(p), " must be an integer, got ",
                         QuoteForMessage(value)),
            absl::StrCat("Write the number in decimal digits only, e.g. ",
                         p.name, " = \"3\"")));
        return std::nullopt;
    }
  }
  if (p.type == ParamType::kBoolean) {
    if (value == "true" || value == "false") return core::Json(value == "true");
    issues->push_back(
        TypeIssue(absl::StrCat(ParamLabel(p), " must be true or false, got ",
                               QuoteForMessage(value)),
                  absl::StrCat("Write ", p.name, " = \"true\" or ", p.name,
                               " = \"false\"")));
    return std::nullopt;
  }
  size_t bad = 0;
  if (!IsValidUtf8(value, &bad)) {
    issues->push_back(TypeIssue(
        absl::StrCat(
            ParamLabel(p), " is not valid UTF-8 (byte 0x",
            absl::Hex(static_cast<unsigned char>(value[bad]), absl::kZeroPad2),
            " at offset ", bad, ")"),
        "Send text as UTF-8; clada reads and writes UTF-8 text only"));
    return std::nullopt;
  }
  if (p.type == ParamType::kEnum) {
    if (std::find(p.values.begin(), p.values.end(), value) != p.values.end())
      return core::Json(std::move(value));
    issues->push_back(TypeIssue(
        absl::StrCat(ParamLabel(p),
                     " must be one of: ", absl::StrJoin(p.values, ", "),
                     "; got ", QuoteForMessage(value)),
        absl::StrCat("Use one of the listed values, e.g. ", p.name, " = \"",
                     p.values.front(), "\"")));
    return std::nullopt;
  }
  const std::string path_fix = absl::StrCat(
      "Give a path relative to the working root or an absolute one, e.g. ",
      p.name, " = \"src/main.cc\"");
  if (p.format == "path") {
    if (absl::StripAsciiWhitespace(value).empty()) {
      issues->push_back(TypeIssue(
          absl::StrCat(ParamLabel(p), " must be a non-empty path"), path_fix));
      return std::nullopt;
    }
    if (value.find('\0') != std::string::npos) {
      issues->push_back(TypeIssue(
          absl::StrCat(ParamLabel(p), " contains a NUL byte"), path_fix));
      return std::nullopt;
    }
    return core::Json(std::move(value));
  }
  if (p.format == "multiline_paths") {
    std::vector<absl::string_view> paths;
    for (absl::string_view line : absl::StrSplit(value, '\n')) {
      line = absl::StripAsciiWhitespace(line);
      if (!line.empty()) paths.push_back(line);
    }
    if (value.find('\0') != std::string::npos) {
      issues->push_back(
          TypeIssue(absl::StrCat(ParamLabel(p), " contains a NUL byte"),
                    "Write one path per line, in a heredoc"));
      return std::nullopt;
    }
    if (paths.empty()) {
      issues->push_back(
          TypeIssue(absl::StrCat(ParamLabel(p),
                                 " must list at least one path, one per line"),
                    "Write one path per line, in a heredoc"));
      return std::nullopt;
    }
    return core::Json(absl::StrJoin(paths, "\n"));
  }
  if (p.format == "line_range") {
    std::optional<std::string> range = CanonicalLineRange(value);
    if (range.has_value()) return core::Json(*range);
    issues->push_back(
        TypeIssue(absl::StrCat(ParamLabel(p),
                               " must be a line number or range like \"5\" or "
                               "\"5-10\" (1-based, end >= start), got ",
                               QuoteForMessage(value)),
                  absl::StrCat("Write ", p.name, " = \"5\" for one line or ",
                               p.name, " = \"5-10\" for lines 5 to 10")));
    return std::nullopt;
  }
  return core::Json(std::move(value));
}

// True when a heredoc given for `param` of `action` is a file's lines: each
// line, the last one included, ends with "\n" (as an editor saves a file).
// Edits (old_text, new_text, ...) keep the heredoc's exact text.
bool IsLinesParameter(absl::string_view action, absl::string_view param) {
  return param == "content" &&
         (action == "file_write" || action == "file_append");
}

// Makes the value of heredoc `h` what the action receives, in place (the
// parser leaves room for the final "\n", so a 50 MB value is not copied):
// without the indentation of an indented closer (and the line break before
// it), and, for a parameter read as lines, with a "\n" after the last line.
// An empty heredoc (the closer right after the opener) stays "": no lines.
void ApplyHeredocRules(const sham_parser::Heredoc& h, bool as_lines,
                       std::string* value, std::vector<std::string>* warnings) {
  int lines = h.close_line - h.open_line - 1;
  if (h.indented) {
    if (value->size() >= h.closer_column)
      value->resize(value->size() - h.closer_column);
    if (lines > 0 && !value->empty() && value->back() == '\n')
      value->pop_back();
    warnings->push_back(absl::StrCat(
        "Parameter '", ToValidUtf8(h.key), "': the heredoc's closing line ",
        h.close_line, " is indented; the value ends at the line before it "
        "(start the closing line at column 1)"));
  } else if (h.closer_column > 0) {
    ++lines;  // the closer was appended to the last line
  }
  if (as_lines && lines > 0) value->push_back('\n');
}

// The first control character in `value` that a quoted value almost never
// means: every C0 control but tab, line feed and carriage return (which
// mean the same in a regular expression and are how CRLF text is written).
// `\b` in "\bword\b" is a backspace, not a word boundary.
std::optional<unsigned char> UnmeantControl(absl::string_view value) {
  for (const char ch : value) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return c;
  }
  return std::nullopt;
}

// "a backspace (U+0008, written \b)".
std::string DescribeControl(unsigned char c) {
  const std::string code = absl::StrCat("U+00", absl::Hex(c, absl::kZeroPad2));
  switch (c) {
    case '\b':
      return absl::StrCat("a backspace (", code, ", written \\b)");
    case '\f':
      return absl::StrCat("a form feed (", code, ", written \\f)");
    case 0:
      return absl::StrCat("a NUL byte (", code, ", written \\u0000)");
    default:
      return absl::StrCat("the control character ", code, " (written \\u00",
                          absl::Hex(c, absl::kZeroPad2), ")");
  }
}

Issue UnmeantControlIssue(const ParameterDef& p, unsigned char c,
                          absl::string_view block_id) {
  const std::string id = block_id.empty() ? "k7m" : std::string(block_id);
  return TypeIssue(
      absl::StrCat(ParamLabel(p), " holds ", DescribeControl(c),
                   ", which a quoted value decodes its escape to and which "
                   "is almost never meant"),
      absl::StrCat(
          "For regular expressions and backslashes use a heredoc: ", p.name,
          " = <<'EOT_SHAM_", id,
          "', then the text exactly as it is (\\b stays \\b), then a line "
          "EOT_SHAM_",
          id, "; in a quoted value write \\\\ for each backslash"));
}

}  // namespace

std::optional<std::string> ActionValue(const sham_parser::Block& block) {
  std::optional<std::string> value;
  for (const auto& [key, v] : block.properties) {
    if (key == "action") value = v;
  }
  return value;
}

ActionCheck CheckActionName(const sham_parser::Block& block,
                            const ActionSchema& schema) {
  ActionCheck check;
  const std::optional<std::string> name = ActionValue(block);
  if (!name.has_value() || absl::StripAsciiWhitespace(*name).empty()) {
    check.issues.push_back(
        Issue{"validation",
              name.has_value() ? "Missing 'action' field (its value is empty)"
                               : "Missing 'action' field",
              absl::StrCat("Add a line naming the action, e.g. action = "
                           "\"file_write\"; actions: ",
                           LlmActionNames(schema))});
    return check;
  }
  const ActionDefinition* definition =
      schema.Find(absl::StripAsciiWhitespace(*name));
  if (definition == nullptr) {
    const ActionDefinition* suggestion = SuggestAction(*name, schema);
    if (suggestion != nullptr) {
      check.issues.push_back(
          Issue{"validation",
                absl::StrCat("Unknown action: ", ShowName(*name),
                             " (did you mean '", suggestion->name, "'?)"),
                absl::StrCat("Write action = \"", suggestion->name, "\"")});
    } else {
      check.issues.push_back(Issue{
          "validation", absl::StrCat("Unknown action: ", ShowName(*name)),
          absl::StrCat("The nearest actions are ",
                       absl::StrJoin(NearestActions(*name, schema, 3), ", "),
                       "; `clada instructions` lists them all")});
    }
    return check;
  }
  if (!definition->IsLlmAccessible()) {
    check.issues.push_back(Issue{
        "validation",
        absl::StrCat("Action '", definition->name, "' is run by the user as `",
                     definition->user_command, "`, not from an LLM answer"),
        absl::StrCat(
            "Remove this block; if it is needed, ask the user to run `",
            definition->user_command, "`")});
    return check;
  }
  check.definition = definition;
  return check;
}

std::vector<Issue> CheckRequiredParameters(const sham_parser::Block& block,
                                           const ActionDefinition& definition) {
  std::vector<Issue> issues;
  for (const ParameterDef& p : definition.parameters) {
    if (!p.required) continue;
    const bool present =
        std::any_of(block.properties.begin(), block.properties.end(),
                    [&](const auto& kv) { return kv.first == p.name; });
    if (present) continue;
    // A key the action does not take that was probably meant for p.
    const std::string* meant = nullptr;
    for (const auto& [key, value] : block.properties) {
      if (key == "action" || definition.FindParameter(key) != nullptr) continue;
      if (SuggestParameter(key, definition) == &p) {
        meant = &key;
        break;
      }
    }
    if (meant != nullptr) {
      issues.push_back(Issue{
          "validation",
          absl::StrCat("Missing required parameter: ", p.name,
                       " (the block has '", ToValidUtf8(*meant),
                       "': did you mean '", p.name, "'?)"),
          absl::StrCat("Rename ", ToValidUtf8(*meant), " to ", p.name, "; ",
                       ParameterNames(definition))});
      continue;
    }
    issues.push_back(Issue{
        "validation", absl::StrCat("Missing required parameter: ", p.name),
        absl::StrCat("Add the line ", p.name, " = \"...\" to the block; ",
                     ParameterNames(definition))});
  }
  return issues;
}

Conversion ConvertParameters(sham_parser::Block&& block,
                             const ActionDefinition& definition) {
  Conversion out;
  // Unknown keys, each once, in block order; a block may hold millions.
  std::vector<absl::string_view> ignored;
  absl::flat_hash_set<absl::string_view> ignored_seen;
  absl::flat_hash_map<absl::string_view, const sham_parser::Heredoc*> heredocs;
  for (const sham_parser::Heredoc& h : block.heredocs) heredocs[h.key] = &h;
  for (auto& [key, value] : block.properties) {
    if (key == "action") continue;
    const ParameterDef* p = definition.FindParameter(key);
    if (p == nullptr) {
      if (ignored_seen.insert(key).second) ignored.push_back(key);
      continue;
    }
    const auto found = heredocs.find(key);
    const sham_parser::Heredoc* heredoc =
        found == heredocs.end() ? nullptr : found->second;
    std::optional<core::Json> converted;
    if (heredoc != nullptr) {
      const bool as_lines = IsLinesParameter(definition.name, key);
      ApplyHeredocRules(*heredoc, as_lines, &value, &out.warnings);
      if (as_lines) out.line_params.push_back(key);
      converted = ConvertValue(*p, std::move(value), &out.issues);
    } else if (const std::optional<unsigned char> c = UnmeantControl(value)) {
      out.issues.push_back(UnmeantControlIssue(*p, *c, block.id));
    } else {
      converted = ConvertValue(*p, std::move(value), &out.issues);
    }
    if (converted.has_value()) out.params[key] = *std::move(converted);
  }
  for (const ParameterDef& p : definition.parameters) {
    if (p.default_value.has_value() && !out.params.contains(p.name))
      out.params[p.name] = *p.default_value;
  }
  if (!ignored.empty()) {
    std::vector<std::string> shown;
    for (size_t i = 0; i < ignored.size() && i < kMaxListedIgnoredKeys; ++i) {
      const ParameterDef* meant = SuggestParameter(ignored[i], definition);
      shown.push_back(absl::StrCat(
          "'", ToValidUtf8(ignored[i]), "'",
          meant == nullptr
              ? ""
              : absl::StrCat(" (did you mean '", meant->name, "'?)")));
    }
    std::string more;
    if (ignored.size() > kMaxListedIgnoredKeys)
      more = absl::StrCat(" and ", ignored.size() - kMaxListedIgnoredKeys,
                          " more");
    out.warnings.push_back(absl::StrCat(
        definition.name, ": ignored unknown parameter",
        ignored.size() == 1 ? " " : "s ", absl::StrJoin(shown, ", "), more,
        " (", ParameterNames(definition), ")"));
  }
  return out;
}

Transform TransformBlock(sham_parser::Block&& block,
                         const ActionDefinition& definition) {
  Transform out;
  out.issues = CheckRequiredParameters(block, definition);
  Conversion conversion = ConvertParameters(std::move(block), definition);
  out.issues.insert(out.issues.end(),
                    std::make_move_iterator(conversion.issues.begin()),
                    std::make_move_iterator(conversion.issues.end()));
  if (!out.issues.empty()) return out;
  core::Action action;
  action.name = definition.name;
  action.params = std::move(conversion.params);
  action.metadata.block_id = block.id;
  action.metadata.start_line = block.start_line;
  action.metadata.end_line = block.end_line.value_or(block.start_line);
  action.warnings = std::move(conversion.warnings);
  action.line_params = std::move(conversion.line_params);
  out.action = std::move(action);
  return out;
}

absl::Status IssuesToStatus(const std::vector<Issue>& issues) {
  if (issues.empty()) return absl::OkStatus();
  std::vector<absl::string_view> messages;
  for (const Issue& i : issues) messages.push_back(i.message);
  return absl::InvalidArgumentError(absl::StrJoin(messages, "; "));
}

}  // namespace internal

absl::StatusOr<const ActionDefinition*> ValidateShamBlock(
    const sham_parser::Block& block, const ActionSchema& schema) {
  internal::ActionCheck check = internal::CheckActionName(block, schema);
  if (check.definition == nullptr)
    return internal::IssuesToStatus(check.issues);
  std::vector<internal::Issue> missing =
      internal::CheckRequiredParameters(block, *check.definition);
  if (!missing.empty()) return internal::IssuesToStatus(missing);
  return check.definition;
}

absl::StatusOr<core::Json> CheckParameterValue(const ParameterDef& parameter,
                                               std::string text) {
  std::vector<internal::Issue> issues;
  std::optional<core::Json> value =
      internal::ConvertValue(parameter, std::move(text), &issues);
  if (!value.has_value()) return internal::IssuesToStatus(issues);
  return *std::move(value);
}

absl::StatusOr<core::Action> TransformToAction(
    const sham_parser::Block& block, const ActionDefinition& definition) {
  internal::Transform transform =
      internal::TransformBlock(sham_parser::Block(block), definition);
  if (!transform.action.has_value())
    return internal::IssuesToStatus(transform.issues);
  return *std::move(transform.action);
}

}  // namespace clada::sham_action_parser
