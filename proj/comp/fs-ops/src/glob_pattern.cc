#include "proj/comp/fs-ops/src/glob_pattern.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace clada::fs_ops::internal {
namespace {

constexpr size_t kMaxAlternatives = 256;

absl::Status BadPattern(absl::string_view pattern, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("glob pattern \"", pattern, "\" ", why));
}

// Expands the first top-level brace group, recursively.
absl::Status ExpandBraces(absl::string_view full, const std::string& pattern, std::vector<std::string>* out) {
  size_t open = std::string::npos;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\') {
      ++i;
      continue;
    }
    if (pattern[i] == '[') {  // braces inside a class are literal
      size_t j = i + 1;
      if (j < pattern.size() && (pattern[j] == '!' || pattern[j] == '^')) ++j;
      if (j < pattern.size() && pattern[j] == ']') ++j;
      while (j < pattern.size() && pattern[j] != ']') ++j;
      if (j < pattern.size()) i = j;
      continue;
    }
    if (pattern[i] == '{') {
      open = i;
      break;
    }
    if (pattern[i] == '}') return BadPattern(full, "has a \"}\" without \"{\"");
  }
  if (open == std::string::npos) {
    if (out->size() >= kMaxAlternatives) return BadPattern(full, "expands to more than 256 alternatives");
    out->push_back(pattern);
    return absl::OkStatus();
  }
  int depth = 0;
  std::vector<std::string> options;
  size_t part_start = open + 1;
  size_t close = std::string::npos;
  for (size_t i = open; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\') {
      ++i;
      continue;
    }
    if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (--depth == 0) {
        options.push_back(pattern.substr(part_start, i - part_start));
        close = i;
        break;
      }
    } else if (c == ',' && depth == 1) {
      options.push_back(pattern.substr(part_start, i - part_start));
      part_start = i + 1;
    }
  }
  if (close == std::string::npos) return BadPattern(full, "has a \"{\" without \"}\"");
  std::string head = pattern.substr(0, open);
  std::string tail = pattern.substr(close + 1);
  for (const std::string& option : options) {
    absl::Status s = ExpandBraces(full, head + option + tail, out);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

// Matches a bracket class at pattern[*pi] ('[') against byte c; advances
// *pi past the class. Returns false for an unterminated class via *ok.
bool MatchClass(absl::string_view p, size_t* pi, unsigned char c, bool* ok) {
  size_t i = *pi + 1;
  bool negate = false;
  if (i < p.size() && (p[i] == '!' || p[i] == '^')) {
    negate = true;
    ++i;
  }
  bool matched = false;
  bool first = true;
  while (i < p.size() && (p[i] != ']' || first)) {
    first = false;
    unsigned char lo = static_cast<unsigned char>(p[i]);
    if (lo == '\\' && i + 1 < p.size()) lo = static_cast<unsigned char>(p[++i]);
    unsigned char hi = lo;
    if (i + 2 < p.size() && p[i + 1] == '-' && p[i + 2] != ']') {
      hi = static_cast<unsigned char>(p[i + 2]);
      i += 2;
    }
    if (c >= lo && c <= hi) matched = true;
    ++i;
  }
  if (i >= p.size()) {
    *ok = false;
    return false;
  }
  *pi = i + 1;
  return matched != negate;
}

bool Validate(absl::string_view part) {
  for (size_t i = 0; i < part.size(); ++i) {
    if (part[i] == '\\') {
      ++i;
    } else if (part[i] == '[') {
      bool ok = true;
      size_t j = i;
      MatchClass(part, &j, 0, &ok);
      if (!ok) return false;
      i = j - 1;
    }
  }
  return true;
}

// Matches parts of a path against pattern parts, `**` included, by keeping
// the set of pattern positions reachable so far.
std::vector<char> Run(const std::vector<std::string>& pat, const std::vector<absl::string_view>& parts) {
  size_t n = pat.size();
  std::vector<char> cur(n + 1, 0), next(n + 1, 0);
  auto close = [&](std::vector<char>& s) {
    for (size_t i = 0; i < n; ++i) {
      if (s[i] && pat[i] == "**") s[i + 1] = 1;
    }
  };
  cur[0] = 1;
  close(cur);
  for (absl::string_view part : parts) {
    std::fill(next.begin(), next.end(), 0);
    bool any = false;
    for (size_t i = 0; i < n; ++i) {
      if (!cur[i]) continue;
      if (pat[i] == "**") {
        next[i] = 1;
        any = true;
      } else if (MatchComponent(pat[i], part)) {
        next[i + 1] = 1;
        any = true;
      }
    }
    cur.swap(next);
    if (!any) return cur;
    close(cur);
  }
  return cur;
}

std::vector<absl::string_view> SplitPath(absl::string_view path) {
  if (path.empty()) return {};
  return absl::StrSplit(path, '/', absl::SkipEmpty());
}

}  // namespace

bool MatchComponent(absl::string_view p, absl::string_view s) {
  size_t pi = 0, si = 0;
  size_t star_p = std::string::npos, star_s = 0;
  while (si < s.size()) {
    if (pi < p.size()) {
      char c = p[pi];
      if (c == '*') {
        star_p = pi++;
        star_s = si;
        continue;
      }
      if (c == '?') {
        ++pi;
        ++si;
        continue;
      }
      if (c == '[') {
        bool ok = true;
        size_t next = pi;
        if (MatchClass(p, &next, static_cast<unsigned char>(s[si]), &ok) && ok) {
          pi = next;
          ++si;
          continue;
        }
      } else {
        if (c == '\\' && pi + 1 < p.size()) c = p[pi + 1];
        if (c == s[si]) {
          pi += p[pi] == '\\' && pi + 1 < p.size() ? 2 : 1;
          ++si;
          continue;
        }
      }
    }
    if (star_p == std::string::npos) return false;
    pi = star_p + 1;
    si = ++star_s;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

absl::StatusOr<GlobPattern> GlobPattern::Compile(absl::string_view pattern) {
  if (pattern.empty()) return BadPattern(pattern, "is empty");
  if (pattern[0] == '/') {
    return BadPattern(pattern, "is absolute; give it relative to base_path (put the directory in base_path)");
  }
  GlobPattern g;
  g.text_ = std::string(pattern);
  std::vector<std::string> expanded;
  absl::Status s = ExpandBraces(pattern, g.text_, &expanded);
  if (!s.ok()) return s;
  g.name_only_ = true;
  for (const std::string& alt : expanded) {
    std::vector<std::string> parts;
    for (absl::string_view part : absl::StrSplit(alt, '/', absl::SkipEmpty())) {
      if (part == "..") return BadPattern(pattern, "has a \"..\" component; move base_path up instead");
      if (part == ".") continue;
      if (!Validate(part)) return BadPattern(pattern, "has a \"[\" without \"]\"");
      parts.emplace_back(part);
    }
    if (parts.size() != 1 || parts[0] == "**") g.name_only_ = false;
    if (parts.empty()) return BadPattern(pattern, "has no component to match");
    g.alternatives_.push_back(std::move(parts));
  }
  return g;
}

bool GlobPattern::Matches(absl::string_view path) const {
  std::vector<absl::string_view> parts = SplitPath(path);
  for (const auto& alt : alternatives_) {
    if (Run(alt, parts)[alt.size()]) return true;
  }
  return false;
}

bool GlobPattern::CouldMatchBelow(absl::string_view dir) const {
  std::vector<absl::string_view> parts = SplitPath(dir);
  for (const auto& alt : alternatives_) {
    std::vector<char> states = Run(alt, parts);
    for (size_t i = 0; i < alt.size(); ++i) {
      if (states[i]) return true;
    }
  }
  return false;
}

}  // namespace clada::fs_ops::internal
