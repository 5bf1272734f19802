// Scanner internals shared by the public text functions and the watcher.
#ifndef CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_SCAN_H_
#define CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_SCAN_H_

#include <vector>

#include "proj/comp/listener/src/internal/lines.h"
#include "proj/comp/listener/src/listener.h"

namespace clada::listener::internal {

struct ScanResult {
  std::vector<ScannedBlock> blocks;
  std::vector<bool> in_results;  // per line: inside a results section
};

ScanResult ScanLines(const std::vector<Line>& lines);

// The blocks of `all` that `state` has not run, first occurrence of each key.
std::vector<ScannedBlock> FilterNewBlocks(const std::vector<ScannedBlock>& all, const ListenState& state);

}  // namespace clada::listener::internal

#endif  // CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_SCAN_H_
