#include "proj/comp/sham-action-parser/src/commands.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"
#include "proj/comp/sham-action-parser/src/text_util.h"

namespace clada::sham_action_parser {
namespace {

// Characters of a primary parameter shown on an action's one-line summary.
constexpr size_t kMaxSummaryChars = 80;

constexpr absl::string_view kIntroduction =
    R"(# Reading and changing files with clada

To read files, change them or run code, put SHAM blocks in your answer. clada
runs every valid block in order and reports each result. A block with a
mistake is skipped and explained; the other blocks still run. Text outside
blocks is ignored.

## Syntax

)";

constexpr absl::string_view kRules = R"(
Rules:
- A block starts with `#!SHAM [@three-char-SHA-256: k7m]` and ends with
  `#!END_SHAM_k7m`. The ID is 3 letters or digits (2 to 8 are accepted);
  give every block in an answer its own ID.
- Inside a block each line is `key = "value"`, the start of a heredoc, or
  empty. `action` names what to do; the other keys are its parameters. Keys
  start at the beginning of the line. There are no comments.
- A quoted value stays on one line and is read as a JSON string: write
  \" for a double quote and \\ for a backslash; \n, \t, \r, \b, \f, \/ and
  \uXXXX are decoded too (so "C:\new" holds a line break), and any other
  backslash, as in "\d+" or "C:\Users", makes the block invalid.
- For text with line breaks, backslashes (regular expressions, Windows
  paths) or many quotes use a heredoc: `key = <<'EOT_SHAM_k7m'`, then the
  text exactly as it should be, then a line holding only `EOT_SHAM_k7m` (the
  block's ID after EOT_SHAM_). Nothing inside a heredoc is escaped. A block
  may hold several heredocs. Start the closing line at column 1.
- The `content` of file_write and file_append, given as a heredoc, is lines:
  each ends with a line break, the last one too, as an editor saves a file
  (an empty heredoc writes nothing), and file_append starts on a line of
  its own. A quoted value is written exactly as given: use one for a file
  that must not end with a line break. Edits (old_text, new_text) are
  matched and written exactly as given, heredoc or not.
- Every value is text: write numbers as "3" and booleans as "true" or "false".
- Paths may be relative (to the project's root) or absolute.
- Keys an action does not take are ignored, with a warning.

## Worked example

I will rename the greeting function's parameter and then run the tests.

#!SHAM [@three-char-SHA-256: r4n]
action = "file_replace_text"
path = "src/greeting.py"
old_text = <<'EOT_SHAM_r4n'
def greet():
    print("hello")
EOT_SHAM_r4n
new_text = <<'EOT_SHAM_r4n'
def greet(name):
    print(f"hello {name}")
EOT_SHAM_r4n
#!END_SHAM_r4n

#!SHAM [@three-char-SHA-256: t2x]
action = "exec"
lang = "bash"
code = "python3 -m pytest -q tests/test_greeting.py"
#!END_SHAM_t2x

## Actions
)";

// "string, path, required" / "integer, optional, default 1" / "one of a, b".
std::string DescribeParameter(const ParameterDef& p) {
  std::vector<std::string> parts;
  if (p.type == ParamType::kEnum) {
    parts.push_back(absl::StrCat("one of ", absl::StrJoin(p.values, ", ")));
  } else {
    parts.emplace_back(ParamTypeName(p.type));
  }
  if (p.format == "path") parts.push_back("a path");
  if (p.format == "multiline_paths") parts.push_back("paths, one per line");
  if (p.format == "line_range") parts.push_back("\"N\" or \"N-M\"");
  parts.push_back(p.required ? "required" : "optional");
  if (p.default_value.has_value()) {
    const core::Json& d = *p.default_value;
    parts.push_back(absl::StrCat(
        "default ", d.is_string()
                        ? absl::StrCat("\"", d.get<std::string>(), "\"")
                        : d.dump()));
  }
  return absl::StrJoin(parts, ", ");
}

void PrintText(const ActionParseResult& r, std::ostream& out) {
  out << r.total_blocks << (r.total_blocks == 1 ? " block: " : " blocks: ")
      << r.actions.size() << " would run, " << r.errors.size()
      << (r.errors.size() == 1 ? " error" : " errors") << "\n";
  if (!r.actions.empty()) {
    out << "\nwould run:\n";
    for (const core::Action& a : r.actions) {
      std::string line = absl::StrCat(
          "  ", internal::ToValidUtf8(a.metadata.block_id), " ", a.name);
      const std::string value = SummaryValue(a);
      if (!value.empty()) absl::StrAppend(&line, " ", value);
      out << line << "\n";
      for (const std::string& w : a.warnings)
        out << "      warning: " << internal::ToValidUtf8(w) << "\n";
    }
  }
  if (!r.errors.empty()) {
    out << "\nerrors:\n";
    for (const ActionParseError& e : r.errors) {
      out << "  "
          << (e.block_id.empty() ? "(no id)"
                                 : internal::ToValidUtf8(e.block_id))
          << " line " << e.block_start_line << " " << e.error_type << ": "
          << internal::ToValidUtf8(e.message) << "\n";
      out << "      fix: " << internal::ToValidUtf8(e.fix) << "\n";
    }
  }
  if (!r.warnings.empty()) {
    out << "\nwarnings:\n";
    for (const std::string& w : r.warnings)
      out << "  " << internal::ToValidUtf8(w) << "\n";
  }
}

}  // namespace

std::string SummaryValue(const core::Action& action) {
  const ActionDefinition* def = FindAction(action.name);
  if (def == nullptr || def->primary_param.empty() ||
      !action.params.contains(def->primary_param))
    return "";
  const core::Json& value = action.params[def->primary_param];
  if (!value.is_string()) return value.dump();
  const std::string& text = value.get_ref<const std::string&>();
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  std::string shown = internal::ToValidUtf8(lines.front());
  if (shown.size() > kMaxSummaryChars) {
    size_t cut = kMaxSummaryChars;
    while (cut > 0 && (static_cast<unsigned char>(shown[cut]) & 0xC0) == 0x80)
      --cut;
    shown = absl::StrCat(shown.substr(0, cut), "...");
  }
  if (lines.size() > 1) {
    absl::StrAppend(&shown, " (+", lines.size() - 1,
                    lines.size() == 2 ? " more line)" : " more lines)");
  }
  return shown;
}

int RunValidateCommand(absl::string_view input, bool json, std::ostream& out, size_t max_input_bytes) {
  const ActionParseResult r = ParseShamResponse(input, max_input_bytes);
  if (json) {
    core::Json doc = core::Json::object();
    doc["summary"] = {{"totalBlocks", r.total_blocks},
                      {"successCount", r.actions.size()},
                      {"errorCount", r.errors.size()}};
    doc["actions"] = core::Json::array();
    for (const core::Action& a : r.actions)
      doc["actions"].push_back(ActionToJson(a));
    doc["errors"] = core::Json::array();
    for (const ActionParseError& e : r.errors)
      doc["errors"].push_back(ActionParseErrorToJson(e));
    doc["warnings"] = core::Json::array();
    for (const std::string& w : r.warnings)
      doc["warnings"].push_back(internal::ToValidUtf8(w));
    out << doc.dump(2, ' ', false, core::Json::error_handler_t::replace)
        << "\n";
  } else {
    PrintText(r, out);
  }
  return r.errors.empty() ? 0 : 1;
}

std::string RenderInstructions() {
  const ActionSchema& schema = LoadedSchema();
  std::string text(kIntroduction);
  absl::StrAppend(&text, schema.syntax_example, kRules);
  for (const ActionDefinition& a : schema.actions) {
    if (!a.IsLlmAccessible()) continue;
    absl::StrAppend(&text, "\n### ", a.name, "\n", a.description, "\n");
    if (a.parameters.empty()) absl::StrAppend(&text, "No parameters.\n");
    for (const ParameterDef& p : a.parameters) {
      absl::StrAppend(&text, "- ", p.name, " (", DescribeParameter(p), ")");
      if (!p.description.empty()) absl::StrAppend(&text, ": ", p.description);
      absl::StrAppend(&text, "\n");
    }
  }
  return text;
}

core::Json SchemaToJson() { return ActionSchemaToJson(LoadedSchema()); }

}  // namespace clada::sham_action_parser
