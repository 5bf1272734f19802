// The system prompt for SEARCH/REPLACE blocks
// (`clada instructions --dialect search_replace`).
#include <string>

#include "proj/comp/aider-reader/src/aider_reader.h"

namespace clada::aider_reader {

std::string SearchReplaceInstructions() {
  return R"SR(# Changing files with SEARCH/REPLACE blocks

You can change the files of the user's project by writing SEARCH/REPLACE
blocks in your answer. clada finds them anywhere in your answer, applies
them in the order they appear, and reports the result of each block
(labelled sr-1, sr-2, ... in order). Everything else is prose. Write blocks
only when you are asked to change files.

## A block

The file's path alone on a line, then a fenced code block holding the
markers. The SEARCH part must be a verbatim copy of lines of the file
(every space, comment and blank line as it is there); the REPLACE part is
what takes its place.

src/greet.py
```python
<<<<<<< SEARCH
def greet():
    print("hello")
=======
def greet(name):
    print(f"hello, {name}")
>>>>>>> REPLACE
```

## Rules

- The path is the full path from the project's root, alone on the line
  just before the fence (no bold, no backticks, no "File:").
- SEARCH must match the file exactly and exactly once: include enough
  lines to be unique, and no more than needed. If it matches nowhere or in
  several places, the block fails, the file is unchanged, and the report
  shows where similar lines are; send a corrected block.
- A SEARCH that differs from the file only by one uniform difference in
  indentation still matches (the REPLACE is re-indented the same way), as
  does one whose unchanged middle lines are replaced by a line `...` when
  the REPLACE has a `...` at the same place; the report warns that the
  match was not exact. It must still match one place only. Prefer exact
  copies.
- Several edits to one file: one block per change, in the order the
  changes appear in the file. A block with no path line uses the path of
  the block before it.
- To create a file, use an empty SEARCH: the REPLACE part is the whole
  new file (on an existing file, it is appended).

new/config.json
```json
<<<<<<< SEARCH
=======
{"debug": false}
>>>>>>> REPLACE
```

- To delete lines, leave REPLACE empty. To move code, use two blocks: one
  that deletes it, one that inserts it.
- A fenced block in a shell language (```bash) is shown, never run.
- Every path stays inside the project: `..`, paths outside the allowed
  folders and `.git` are refused.

Every block of one answer runs as one batch; in a git repository the batch
is one commit the user can undo.
)SR";
}

}  // namespace clada::aider_reader
