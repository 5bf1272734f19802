// Status propagation macros shared by every component.
//
// Debian's abseil (20220623) has neither macro, so one pair lives here.
//
// Example:
//   absl::StatusOr<std::string> ReadConfig(const std::string& path) {
//     ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
//     RETURN_IF_ERROR(CheckConfig(text));
//     return text;
//   }
#ifndef CLADA_PROJ_COMP_CORE_SRC_STATUS_MACROS_H_
#define CLADA_PROJ_COMP_CORE_SRC_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define CLADA_CONCAT_INNER_(a, b) a##b
#define CLADA_CONCAT_(a, b) CLADA_CONCAT_INNER_(a, b)

// Returns the status from the enclosing function when `expr` is not OK.
#define RETURN_IF_ERROR(expr)                      \
  do {                                             \
    const ::absl::Status clada_status_ = (expr);   \
    if (!clada_status_.ok()) return clada_status_; \
  } while (0)

// Declares `lhs` from the value of a StatusOr, or returns its error.
#define ASSIGN_OR_RETURN(lhs, rexpr) \
  CLADA_ASSIGN_OR_RETURN_IMPL_(CLADA_CONCAT_(clada_statusor_, __LINE__), lhs, rexpr)

#define CLADA_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                 \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()

#endif  // CLADA_PROJ_COMP_CORE_SRC_STATUS_MACROS_H_
