// Error codes: the word an error is known by (not_found, search_not_found,
// path_escape, exec_timeout, ...), carried beside its message so nothing
// has to classify an error by searching its text.
//
// Example:
//   return core::WithCode(absl::NotFoundError("..."), "search_not_found");
//   ...
//   outcome.code = core::ErrorCode(status);  // "search_not_found"
#ifndef CLADA_PROJ_COMP_CORE_SRC_ERROR_CODE_H_
#define CLADA_PROJ_COMP_CORE_SRC_ERROR_CODE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace clada::core {

// `status` with `code` attached (an error; OK is returned unchanged).
absl::Status WithCode(absl::Status status, absl::string_view code);

// The code attached to `status` by WithCode; without one, the word for its
// canonical code: not_found, permission_denied, already_exists,
// failed_precondition, invalid_params, timeout, cancelled, too_large,
// internal. "" for OK.
std::string ErrorCode(const absl::Status& status);

}  // namespace clada::core

#endif  // CLADA_PROJ_COMP_CORE_SRC_ERROR_CODE_H_
