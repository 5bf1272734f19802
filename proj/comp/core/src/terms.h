// Schema words in an executor's message, for each dialect to say in its own.
//
// An executor's message names a parameter (old_text, count, ...) or an
// action (file_write, ...) of the schema with Term, never as bare text:
//   absl::StrCat(core::Term("old_text"), " was not found in '", label, "'")
// The engine renders the message for the dialect of the block that failed
// (answer::Reader::SayTerm): a CSL operation is told "the SEARCH text was
// not found", a SHAM block and an MCP tool call the bare word, "old_text was
// not found". BareTerms renders every term bare: an executor's own tests,
// and what no dialect phrases (a result's data).
//
// A term is the name between two kTermMark bytes (0x1F, a C0 control no
// message writes): "name", "name=value" (Term(name, value): bare
// "name = value"), "a|b" (TermOr: bare "a (or b)") or "name~N"
// (TermPadding: blanks). A file's text quoted
// in a message is not rendered unless it holds that byte around a name.
#ifndef CLADA_PROJ_COMP_CORE_SRC_TERMS_H_
#define CLADA_PROJ_COMP_CORE_SRC_TERMS_H_

#include <cstddef>
#include <optional>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"

namespace clada::core {

inline constexpr char kTermMark = '\x1f';

// The schema word `name` (a parameter or an action), marked.
std::string Term(absl::string_view name);
// `name` given `value` ("count = 2" bare).
std::string Term(absl::string_view name, absl::string_view value);
// `first`, or else `second` (bare "first (or second)"): a dialect without
// the second says the first only.
std::string TermOr(absl::string_view first, absl::string_view second);

// Blanks as wide as `text` says, less `less` (none when it is narrower):
// `text` a term (as Term gives it), said as the dialect says it, or plain
// text. Lines up what follows with what follows the term on the next line.
std::string TermPadding(absl::string_view text, size_t less);

// How a dialect says one schema word; `value` is empty when the message
// gives none. None: the dialect has no word for it.
using SayTermFn = absl::FunctionRef<std::optional<std::string>(absl::string_view name, absl::string_view value)>;

// `message` with every term said by `say`: a word `say` has none for is
// bare; of TermOr's two, those it has words for (both bare when it has
// none). Text around the terms is kept byte for byte.
std::string RenderTerms(absl::string_view message, SayTermFn say);

// `message` with every term bare: "old_text", "count = 2",
// "file_replace_text (or file_replace_lines)".
std::string BareTerms(absl::string_view message);

}  // namespace clada::core

#endif  // CLADA_PROJ_COMP_CORE_SRC_TERMS_H_
