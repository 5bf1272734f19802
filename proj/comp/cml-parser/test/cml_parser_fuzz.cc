// libFuzzer target for ParseCml.
//
//   bazel build --config=fuzz //proj/comp/cml-parser:cml_parser_fuzz
//   tools/fuzz.sh 60 //proj/comp/cml-parser:cml_parser_fuzz
//
// Besides crashes and sanitizer reports it checks what ParseCml promises:
// blocks in order, inside the text, never overlapping; FindCml agrees; task
// numbers run 1..total_tasks without gaps (tasks in error keep theirs); every
// task has a known action and a label; every error a code, a line and a message.
#include <cstdint>
#include <set>
#include <string>

#include "proj/comp/cml-parser/src/cml_parser.h"
#include "proj/comp/core/test/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace clada::cml_parser;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const CmlParseResult r = ParseCml(text);
  const std::vector<SourceSpan> spans = FindCml(text);
  Check(spans.size() == r.blocks.size());
  size_t previous_end = 0;
  int tasks_seen = 0;
  static const std::set<std::string> kActions = {"file_write",           "file_append", "file_replace_all_text",
                                                 "file_replace_text_range", "file_move",   "file_delete",
                                                 "exec"};
  for (size_t i = 0; i < r.blocks.size(); ++i) {
    const CmlBlock& b = r.blocks[i];
    const SourceSpan span = b.span();
    Check(spans[i].begin == span.begin && spans[i].end == span.end);
    Check(previous_end <= span.begin && span.begin < span.end && span.end <= size);
    Check(text[span.begin] == '<');
    Check(span.first_line >= 1 && span.first_line <= span.last_line);
    previous_end = span.end;
    for (const Task& t : b.tasks()) {
      Check(t.number > tasks_seen && t.number <= r.total_tasks);
      Check(kActions.count(t.action.name) == 1);
      Check(t.action.metadata.block_id == "task-" + std::to_string(t.number));
      Check(t.line >= span.first_line && t.line <= span.last_line);
      tasks_seen = t.number;
    }
    for (const CmlError& e : b.errors()) {
      Check(!e.code.empty() && !e.message.empty());
      Check(e.line >= span.first_line && e.line <= span.last_line && e.column >= 1);
    }
    tasks_seen += 0;
  }
  int counted = 0;
  for (size_t i = 0; i < r.blocks.size(); ++i) counted += r.TaskCount(i);
  Check(counted == r.total_tasks);
  // Packed as read (ParseOptions::pack_actions), the same tasks.
  ParseOptions pack;
  pack.pack_actions = true;
  const CmlParseResult p = ParseCml(text, {}, pack);
  Check(p.blocks.size() == r.blocks.size() && p.total_tasks == r.total_tasks);
  Check(p.packed.size() == p.packed_actions.size());
  for (size_t i = 0; i < r.blocks.size(); ++i) {
    const CmlBlock& b = r.blocks[i];
    const CmlBlock& pb = p.blocks[i];
    Check(pb.tasks().empty() && p.PackedEnd(i) - pb.packed_begin() == b.tasks().size());
    Check(p.TaskCount(i) == r.TaskCount(i) && pb.is_tasks_block() == b.is_tasks_block());
    Check(pb.errors().size() == b.errors().size() && pb.warnings() == b.warnings());
    for (size_t k = 0; k < b.tasks().size(); ++k) {
      const Task& t = b.tasks()[k];
      const clada::core::Action a = p.packed_actions.Get(pb.packed_begin() + k);
      Check(p.packed[pb.packed_begin() + k].number == t.number && p.packed[pb.packed_begin() + k].line == t.line);
      Check(a.name == t.action.name && a.params == t.action.params);
      Check(a.metadata.block_id == t.action.metadata.block_id && a.warnings == t.action.warnings);
      Check(a.metadata.start_line == t.action.metadata.start_line && a.line_params == t.action.line_params);
    }
  }
  return 0;
}
