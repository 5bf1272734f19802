#include "proj/comp/context/src/store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/json_bounded.h"
#include "proj/comp/core/src/state_dir.h"

namespace clada::context::internal {
namespace {

constexpr int kFormatVersion = 1;
// context.json holds paths only; anything this large is not ours.
constexpr int64_t kMaxStoreBytes = 16 * 1024 * 1024;

absl::Status Corrupt(const std::string& file, absl::string_view problem) {
  return absl::FailedPreconditionError(absl::StrCat(
      "context_corrupt: ", file, " is not a valid context file (", problem,
      "). It was left untouched. Fix it by hand to the form {\"version\": 1, "
      "\"entries\": [\"path\", ...]}, "
      "or delete it to start with an empty context"));
}

absl::Status IoError(const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat("io_error: ", status.message()));
}

}  // namespace

std::string ContextFilePath(const std::string& working_root) {
  return core::StatePath(working_root, "context.json");
}

absl::StatusOr<std::vector<std::string>> LoadEntries(
    const std::string& working_root) {
  const std::string file = ContextFilePath(working_root);
  absl::StatusOr<std::string> text =
      core::ReadFileToString(file, kMaxStoreBytes);
  if (absl::IsNotFound(text.status())) return std::vector<std::string>();
  if (absl::IsFailedPrecondition(text.status()))
    return Corrupt(file, text.status().message());
  if (!text.ok()) return IoError(text.status());

  // Bounded: a file nested 100,000 levels deep crashed the parser.
  absl::StatusOr<nlohmann::json> parsed =
      core::ParseJsonBounded(*text, core::kMaxStateJsonDepth, kMaxStoreBytes);
  if (!parsed.ok()) return Corrupt(file, parsed.status().message());
  const nlohmann::json& doc = *parsed;
  if (!doc.is_object())
    return Corrupt(file, "the top level is not a JSON object");
  if (doc.contains("version")) {
    const nlohmann::json& version = doc["version"];
    if (!version.is_number_integer())
      return Corrupt(file, "\"version\" is not an integer");
    if (version.get<int64_t>() != kFormatVersion) {
      return Corrupt(
          file, absl::StrCat("\"version\" is ", version.dump(),
                             "; this clada reads version ", kFormatVersion));
    }
  }
  if (!doc.contains("entries"))
    return Corrupt(file, "there is no \"entries\" array");
  const nlohmann::json& list = doc["entries"];
  if (!list.is_array()) return Corrupt(file, "\"entries\" is not an array");

  std::vector<std::string> entries;
  absl::flat_hash_set<std::string> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_string()) {
      return Corrupt(file, absl::StrCat("entry ", i + 1,
                                        " is not a string: ", list[i].dump()));
    }
    std::string entry = list[i].get<std::string>();
    if (entry.empty() || entry.find('\0') != std::string::npos) {
      return Corrupt(file, absl::StrCat("entry ", i + 1,
                                        " is empty or contains a NUL byte"));
    }
    if (seen.insert(entry).second) entries.push_back(std::move(entry));
  }
  return entries;
}

absl::Status SaveEntries(const std::string& working_root,
                         const std::vector<std::string>& entries) {
  absl::Status made = core::CreateStateDirectory(core::StateDir(working_root));
  if (!made.ok()) return IoError(made);
  nlohmann::ordered_json doc;
  doc["version"] = kFormatVersion;
  doc["entries"] = entries;
  absl::Status written =
      core::WriteFileAtomic(ContextFilePath(working_root), doc.dump(2) + "\n");
  if (!written.ok()) return IoError(written);
  return absl::OkStatus();
}

absl::StatusOr<StoreLock> StoreLock::Acquire(const std::string& working_root) {
  absl::Status made = core::CreateStateDirectory(core::StateDir(working_root));
  if (!made.ok()) return IoError(made);
  const std::string path = core::StatePath(working_root, "context.lock");
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return IoError(core::ErrnoStatus(errno, "cannot open", path));
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int err = errno;
    ::close(fd);
    return IoError(core::ErrnoStatus(err, "cannot lock", path));
  }
  return StoreLock(fd);
}

StoreLock::StoreLock(StoreLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)) {}

StoreLock& StoreLock::operator=(StoreLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

StoreLock::~StoreLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the flock
}

}  // namespace clada::context::internal
