// The system prompt for the apply_patch envelope
// (`clada instructions --dialect apply_patch`).
#include <string>

#include "proj/comp/apply-patch-reader/src/apply_patch_reader.h"

namespace clada::apply_patch_reader {

std::string ApplyPatchInstructions() {
  return R"AP(# Changing files with apply_patch

You can change the files of the user's project by writing a patch in your
answer, in the apply_patch format. clada finds it anywhere in your answer
(also inside a code fence), applies each file operation in order, and
reports the result of each (labelled patch-1, patch-2, ... in order).
Everything else is prose. Write a patch only when you are asked to change
files.

## The format

*** Begin Patch
*** Add File: docs/hello.txt
+Hello, world.
+Second line.
*** Update File: src/app.py
@@ def greet():
-    print("hello")
+    print("hello, world")
*** Update File: src/old_name.py
*** Move to: src/new_name.py
@@
 import os
-import sys
*** Delete File: tmp/scratch.txt
*** End Patch

- `*** Add File: PATH` creates a file: every line of it starts with `+`.
- `*** Delete File: PATH` deletes a file; nothing follows it.
- `*** Update File: PATH` edits a file, optionally renamed by
  `*** Move to: NEW_PATH` on the next line. Its changes are chunks, each
  opened by `@@` or by `@@ ` followed by a line of the file (a class or
  function header) that comes before the change.
- In a chunk, a line starting with a space is context (unchanged), `-` is
  removed, `+` is added. Give about three lines of context before and after
  each change, copied exactly from the file. When that is not unique, add
  `@@ class Name` / `@@ def method():` lines, one after the other, to narrow
  the place down.
- `*** End of File` after a chunk ties it to the end of the file.
- Paths are relative to the project's root, never absolute.

## What clada checks

- The context and removed lines must match the file: exactly, or else
  ignoring trailing spaces, then surrounding spaces, then typographic
  dashes and quotes. The match must be unique; otherwise the operation
  fails naming the candidate lines, and the file is unchanged.
- All chunks of one file apply together or not at all; each file operation
  of the patch stands alone.
- Line endings (CRLF or LF) and a byte-order mark are kept as the file had
  them.
- Every path stays inside the project: `..`, paths outside the allowed
  folders and `.git` are refused.

Every operation of one answer runs as one batch; in a git repository the
batch is one commit the user can undo.
)AP";
}

}  // namespace clada::apply_patch_reader
