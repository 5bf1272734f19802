// The system prompt for unified diffs (`clada instructions --dialect udiff`).
#include <string>

#include "proj/comp/udiff-reader/src/udiff_reader.h"

namespace clada::udiff_reader {

std::string UdiffInstructions() {
  return R"UD(# Changing files with unified diffs

You can change the files of the user's project by writing unified diffs
(as `git diff` or `diff -u` print them) in your answer, each in a ```diff
fence. clada finds them anywhere in your answer, applies each file's diff
in order, and reports the result of each (labelled diff-1, diff-2, ... in
order). Everything else is prose. Write diffs only when you are asked to
change files.

## The format

```diff
--- a/src/app.py
+++ b/src/app.py
@@ -1,4 +1,4 @@
 import os
 
 def greet():
-    print("hello")
+    print("hello, world")
```

- `--- a/PATH` and `+++ b/PATH` name the file, relative to the project's
  root. A new file has `--- /dev/null`; a deleted file has `+++ /dev/null`
  and removes every line.
- Each hunk starts with `@@ -OLD_START,OLD_COUNT +NEW_START,NEW_COUNT @@`.
  In it, a line starting with a space is context (unchanged), `-` is
  removed and `+` is added. Give three lines of context around each
  change, copied exactly from the file, blank lines included (a blank
  context line is a single space).
- Several hunks of one file go under one `---`/`+++` pair, in file order.

## What clada checks

- A diff whose numbers are right applies exactly as `git apply` would.
  When the numbers are off, each hunk is placed by its context instead,
  which must then match the file in exactly one place (exactly, or
  ignoring trailing and surrounding spaces); the report says so in a
  warning. Otherwise the file fails naming the hunk, and is unchanged.
- All hunks of one file apply together or not at all; each file stands
  alone.
- A new file never replaces one already there; a deleted file is deleted
  only when it holds exactly the lines the diff removes.
- Every path stays inside the project: `..`, paths outside the allowed
  folders and `.git` are refused.

Every file of one answer runs as one batch; in a git repository the batch
is one commit the user can undo.
)UD";
}

}  // namespace clada::udiff_reader
