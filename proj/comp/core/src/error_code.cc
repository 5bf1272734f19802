#include "proj/comp/core/src/error_code.h"


#include "absl/strings/cord.h"

namespace clada::core {
namespace {

// The payload's type URL (absl::Status keys payloads by one).
constexpr absl::string_view kCodeUrl = "clada/error_code";

}  // namespace

absl::Status WithCode(absl::Status status, absl::string_view code) {
  if (!status.ok()) status.SetPayload(kCodeUrl, absl::Cord(code));
  return status;
}

std::string ErrorCode(const absl::Status& status) {
  if (status.ok()) return "";
  if (auto code = status.GetPayload(kCodeUrl); code.has_value()) {
    return std::string(*code);
  }
  switch (status.code()) {
    case absl::StatusCode::kNotFound: return "not_found";
    case absl::StatusCode::kPermissionDenied: return "permission_denied";
    case absl::StatusCode::kAlreadyExists: return "already_exists";
    case absl::StatusCode::kFailedPrecondition: return "failed_precondition";
    case absl::StatusCode::kInvalidArgument: return "invalid_params";
    case absl::StatusCode::kDeadlineExceeded: return "timeout";
    case absl::StatusCode::kCancelled: return "cancelled";
    case absl::StatusCode::kResourceExhausted: return "too_large";
    default: return "internal";
  }
}

}  // namespace clada::core
