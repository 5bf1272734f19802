// libFuzzer target for ParseCsl.
//
//   bazel build --config=fuzz //proj/comp/csl-parser:csl_parser_fuzz
//   tools/fuzz.sh 60 //proj/comp/csl-parser:csl_parser_fuzz
//
// Besides crashes and sanitizer reports it checks what ParseCsl promises:
// blocks numbered 1.. in order, inside the text, never overlapping, each
// starting at a line start; FindCsl agrees; every operation one of the five
// actions the reader emits, labelled csl-N or csl-N.M inside its block;
// every error with a code, a message, a fix and a line inside its block.
// The first input byte chooses the delimiters (default, or a one-byte pair),
// so configured delimiters are fuzzed too.
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>

#include "proj/comp/core/test/fuzz_check.h"
#include "proj/comp/csl-parser/src/csl_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace clada::csl_parser;
  Delimiters d;
  if (size > 0 && data[0] == '\x01') {
    d = {"@", "@"};
    ++data;
    --size;
  }
  const std::string text(reinterpret_cast<const char*>(data), size);
  const CslParseResult r = ParseCsl(text, d);
  const std::vector<SourceSpan> spans = FindCsl(text, d);
  Check(spans.size() == r.blocks.size());
  static const std::set<std::string> kActions = {"file_write", "file_append", "file_replace_all_text",
                                                 "file_replace_text_range", "exec"};
  size_t previous_end = 0;
  for (size_t i = 0; i < r.blocks.size(); ++i) {
    const CslBlock& b = r.blocks[i];
    const std::string label = "csl-" + std::to_string(b.number);
    Check(b.number == static_cast<int>(i) + 1);
    Check(spans[i].begin == b.span.begin && spans[i].end == b.span.end);
    Check(spans[i].first_line == b.span.first_line && spans[i].last_line == b.span.last_line);
    Check(previous_end <= b.span.begin && b.span.begin < b.span.end && b.span.end <= size);
    Check(b.span.begin == 0 || text[b.span.begin - 1] == '\n');
    Check(b.span.first_line >= 1 && b.span.first_line <= b.span.last_line);
    Check(b.is_tasks || b.operations().size() + b.errors().size() == 1);
    previous_end = b.span.end;
    int sub = 0;
    for (const Operation& op : b.operations()) {
      Check(kActions.count(op.action.name) == 1);
      Check(op.operation == OperationOf(op.action.name));
      Check(op.action.metadata.block_id == op.label);
      if (b.is_tasks) {
        const std::string prefix = label + ".";
        Check(op.label.compare(0, prefix.size(), prefix) == 0);
        const int m = std::atoi(op.label.c_str() + prefix.size());
        Check(m > sub && m <= b.operation_count);
        sub = m;
      } else {
        Check(op.label == label);
      }
      Check(op.span.begin >= b.span.begin && op.span.end <= b.span.end);
      Check(op.span.first_line >= b.span.first_line && op.span.last_line <= b.span.last_line);
    }
    for (const CslError& e : b.errors()) {
      Check(!e.code.empty() && !e.message.empty() && !e.fix.empty() && !e.operation.empty());
      Check(e.label.compare(0, label.size(), label) == 0);
      Check(e.line >= b.span.first_line && e.line <= b.span.last_line);
      Check(e.span.begin >= b.span.begin && e.span.end <= b.span.end);
    }
  }
  // Packed as read (ParseOptions::pack_actions), the same operations.
  ParseOptions pack;
  pack.pack_actions = true;
  const CslParseResult p = ParseCsl(text, d, {}, pack);
  Check(p.blocks.size() == r.blocks.size() && p.packed.size() == p.packed_actions.size());
  for (size_t i = 0; i < r.blocks.size(); ++i) {
    const CslBlock& b = r.blocks[i];
    const CslBlock& pb = p.blocks[i];
    Check(pb.operations().empty() && pb.packed_end - pb.packed_begin == b.operations().size());
    Check(pb.errors().size() == b.errors().size() && pb.warnings() == b.warnings());
    Check(pb.span.begin == b.span.begin && pb.span.end == b.span.end && pb.span.last_line == b.span.last_line);
    for (size_t k = 0; k < b.operations().size(); ++k) {
      const Operation& op = b.operations()[k];
      const clada::core::Action a = p.packed_actions.Get(pb.packed_begin + k);
      Check(p.packed[pb.packed_begin + k].line == op.span.first_line);
      Check(a.name == op.action.name && a.params == op.action.params);
      Check(a.metadata.block_id == op.action.metadata.block_id && a.warnings == op.action.warnings);
      Check(a.metadata.end_line == op.action.metadata.end_line && a.line_params == op.action.line_params);
    }
  }
  return 0;
}
