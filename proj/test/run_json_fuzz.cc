// libFuzzer target for `clada run --json`: an answer of any bytes is read
// and planned (dry run: nothing is written, nothing runs) in a fixed root,
// and the --json document is printed as WriteExecutionResultJson prints it,
// results kept and spilled. Besides crashes it checks the promise that the
// document is always valid JSON (every string valid UTF-8: a block ID
// ending inside a character once made dump() throw and --json abort).
//
//   bazel build --config=fuzz //proj:run_json_fuzz
//   tools/fuzz.sh 60 //proj:run_json_fuzz
//
// //proj:run_json_fuzz_replay_test runs the same function on the inputs in
// test-data/fuzz-run-json/ (the ones that crashed it) in every build.
#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "nlohmann/json.hpp"
#include "proj/comp/core/test/fuzz_check.h"
#include "proj/src/clada.h"
#include "proj/src/report.h"

namespace {

// One root for every input: a dry run never changes it. Under Bazel's
// TEST_TMPDIR in the replay test (removed with it), else in /tmp.
const std::string& Root() {
  static const std::string root = [] {
    const char* base = std::getenv("TEST_TMPDIR");
    std::string tmpl = std::string(base != nullptr ? base : "/tmp") + "/clada-run-json-fuzz.XXXXXX";
    const char* made = ::mkdtemp(tmpl.data());
    Check(made != nullptr);
    return std::string(made);
  }();
  return root;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string answer(reinterpret_cast<const char*>(data), size);
  for (bool spill : {false, true}) {
    clada::CladaOptions options;
    options.working_root = Root();
    options.dry_run = true;
    options.settings.git = clada::git_tx::GitOptions::Mode::kOff;
    options.spill_results = spill;
    clada::ExecutionResult result = clada::Clada(options).Execute(answer);
    std::ostringstream out;
    clada::WriteExecutionResultJson(result, out);
    Check(nlohmann::json::accept(out.str()));
  }
  return 0;
}
