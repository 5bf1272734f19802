// The answer layer's read of an answer of N blocks of one dialect: the
// registry's spans, the segmenter, and each accepted span read by its
// adapter, timed. With --padded, each span is read instead as the adapters
// read it before they passed a line base: a copy of the span after as many
// empty lines as stand before it, read by the reader component (the cost
// that grew with the square of the answer).
//
//   bazel run -c opt //proj/comp/readers:layer_read_bench -- 200000
//   bazel run -c opt //proj/comp/readers:layer_read_bench -- 20000 --padded
//   (dialects: replacer search_replace apply_patch udiff sham cml csl; one
//   or more after the count reads only those)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "proj/comp/aider-reader/src/aider_reader.h"
#include "proj/comp/answer/src/reader.h"
#include "proj/comp/answer/src/segment.h"
#include "proj/comp/apply-patch-reader/src/apply_patch_reader.h"
#include "proj/comp/cml-parser/src/cml_parser.h"
#include "proj/comp/csl-parser/src/csl_parser.h"
#include "proj/comp/readers/src/all_readers.h"
#include "proj/comp/replacer-reader/src/replacer_reader.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"
#include "proj/comp/udiff-reader/src/udiff_reader.h"

namespace clada::readers {
namespace {

std::string Answer(const std::string& dialect, int blocks) {
  std::string out;
  for (int i = 0; i < blocks; ++i) {
    if (dialect == "replacer") {
      absl::StrAppend(&out, "<<<FILE>>>\nsrc/f", i, ".txt\n<<<SEARCH>>>\nold ", i, "\n<<<REPLACE>>>\nnew ", i,
                      "\n<<<END>>>\n\n");
    } else if (dialect == "search_replace") {
      absl::StrAppend(&out, "src/f", i, ".txt\n<<<<<<< SEARCH\nold ", i, "\n=======\nnew ", i,
                      "\n>>>>>>> REPLACE\n\n");
    } else if (dialect == "apply_patch") {
      absl::StrAppend(&out, "*** Begin Patch\n*** Update File: src/f", i, ".txt\n@@\n-old ", i, "\n+new ", i,
                      "\n*** End Patch\n\n");
    } else if (dialect == "udiff") {
      absl::StrAppend(&out, "--- a/src/f", i, ".txt\n+++ b/src/f", i, ".txt\n@@ -1 +1 @@\n-old ", i, "\n+new ", i,
                      "\n\n");
    } else if (dialect == "sham") {
      absl::StrAppend(&out, "#!SHAM [@three-char-SHA-256: b", i, "]\naction = \"file_write\"\npath = \"src/f", i,
                      ".txt\"\ncontent = \"new ", i, "\"\n#!END_SHAM_b", i, "\n\n");
    } else if (dialect == "cml") {
      absl::StrAppend(&out, "<write path=\"src/f", i, ".txt\">new ", i, "</write>\n\n");
    } else if (dialect == "csl") {
      absl::StrAppend(&out, "<---WRITE file=\"src/f", i, ".txt\"--->\nnew ", i, "\n<---END--->\n\n");
    }
  }
  return out;
}

// What the adapters read before: the span's lines after as many empty
// lines as come before it (the carried path on the last of them).
std::string Padded(absl::string_view text, const answer::Span& span, absl::string_view carried) {
  size_t begin = std::min(span.at.begin, text.size());
  while (begin > 0 && text[begin - 1] != '\n') --begin;
  const size_t end = std::min(std::max(span.at.end, begin), text.size());
  const size_t above = static_cast<size_t>(std::max(span.at.first_line - 1, 0));
  std::string padded;
  if (!carried.empty() && above > 0) {
    padded.assign(above - 1, '\n');
    absl::StrAppend(&padded, carried, "\n");
  } else {
    padded.assign(above, '\n');
  }
  padded.append(text.data() + begin, end - begin);
  return padded;
}

// Reads the span the old way; returns the actions (edits, ops, files) read.
size_t ReadPadded(const std::string& dialect, absl::string_view text, const answer::Span& span,
                  std::string& carried) {
  const std::string padded = Padded(text, span, dialect == "search_replace" ? carried : "");
  size_t n = 0;
  if (dialect == "replacer") {
    replacer_reader::ReadBlocks(
        padded, [&](replacer_reader::Edit&&) { ++n; }, [&](replacer_reader::ParseError&&) { ++n; });
  } else if (dialect == "search_replace") {
    aider_reader::ReadBlocks(padded, [&](aider_reader::Edit&& e) {
      carried = e.path;
      ++n;
    });
  } else if (dialect == "apply_patch") {
    for (const apply_patch_reader::Patch& p : apply_patch_reader::ReadPatches(padded)) n += p.ops.size();
  } else if (dialect == "udiff") {
    udiff_reader::ReadDiffs(padded, [&](udiff_reader::FilePatch&&) { ++n; });
  } else if (dialect == "sham") {
    // With the prose line the adapter appended to an answer not quoted as
    // a whole.
    n += sham_action_parser::ParseShamResponse(padded + "(the answer is not quoted as a whole)\n").actions.size();
  } else if (dialect == "cml") {
    for (const cml_parser::CmlBlock& b : cml_parser::ParseCml(padded).blocks) n += b.tasks().size();
  } else if (dialect == "csl") {
    for (const csl_parser::CslBlock& b : csl_parser::ParseCsl(padded).blocks) n += b.operations().size();
  }
  return n;
}

int Main(int argc, char** argv) {
  const int blocks = argc > 1 ? std::atoi(argv[1]) : 200000;
  bool padded = false;
  std::vector<std::string> dialects;
  for (int k = 2; k < argc; ++k) {
    if (std::string(argv[k]) == "--padded") {
      padded = true;
    } else {
      dialects.push_back(argv[k]);
    }
  }
  if (dialects.empty()) dialects = {"replacer", "search_replace", "apply_patch", "udiff", "sham", "cml", "csl"};
  const Registry registry;
  for (const std::string& dialect : dialects) {
    const std::string text = Answer(dialect, blocks);
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::unique_ptr<answer::SpanReader>> reading(registry.readers().size());
    size_t spans = 0, actions = 0;
    std::string carried;
    answer::SegmentAnswer(text, registry.readers(), [&](const answer::Segment& s) {
      ++spans;
      if (padded && registry.readers()[s.reader]->dialect() == dialect) {
        actions += ReadPadded(dialect, text, s.span, carried);
        return;
      }
      if (reading[s.reader] == nullptr) reading[s.reader] = registry.readers()[s.reader]->Reading(text);
      actions += reading[s.reader]->Read(s.span).actions.size();
    });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%-15s %s %7d blocks %6.1f MB: %zu spans, %zu read, %.3f s\n", dialect.c_str(),
                padded ? "padded" : "based ", blocks, text.size() / 1e6, spans, actions, seconds);
  }
  return 0;
}

}  // namespace
}  // namespace clada::readers

int main(int argc, char** argv) { return clada::readers::Main(argc, argv); }
