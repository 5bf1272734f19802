// The system prompt for the replacer blocks (`clada instructions --dialect replacer`).
#include <string>

#include "proj/comp/replacer-reader/src/replacer_reader.h"

namespace clada::replacer_reader {

std::string ReplacerInstructions() {
  return R"REPLACER(# Changing files with replacer blocks

You can change the files of the user's project by writing edit blocks in
your answer. clada finds them anywhere in your answer, runs them in the
order they appear, and reports the result of each block. Everything else in
your answer is prose. Do not write edit blocks unless you are asked to
change files: when discussing and brainstorming, none are needed.

## A block

For each edit: a brief explanation, the file's path, then the exact text to
find and the text that replaces it. Each marker stands alone at the start of
its line. Put the explanation and the path on their own lines, with blank
lines around them if you like.

<<<EXPLANATION>>>

this is why the change should happen

<<<FILE>>>

package/replacer_demo_src/main.py

<<<SEARCH>>>
def old_function():
   x = 1
   y = 2
   return x + y
<<<REPLACE>>>
def new_function():
   result = 3
   return result
<<<END>>>

The SEARCH text must be a verbatim, character-for-character copy of lines in
the file, and must occur in it exactly once: make it as small as possible
while still unique. If it is not found, or found more than once, the block
fails (the report says where similar text is) and nothing changes.

## A whole file

OVERWRITE creates a new file (and its parent directories) or replaces a
file's whole content. Use it for every new file.

<<<EXPLANATION>>>

this is why this change should happen

<<<FILE>>>
july/coding/bobstuff/react/config/settings.json
<<<OVERWRITE>>>
{
   "debug": true,
   "port": 8080
}
<<<END>>>

## Removing code

To remove a section of code, the REPLACE holds a blank line (a line with a
space): the searched text is removed.

<<<EXPLANATION>>>

remove the search code

<<<FILE>>>

package/replacer_demo_src/main.py

<<<SEARCH>>>
def old_function():
   x = 1
   y = 2
   return x + y
<<<REPLACE>>>
 
<<<END>>>

## Rules

- Every SEARCH or OVERWRITE needs its own <<<FILE>>> right before it, even
  when the previous block edits the same file. A block without one is
  refused.
- Paths are relative to the project root, or absolute; either way they must
  lie inside the project (a path outside it is refused). Be as specific as
  you accurately can.
- Each block is independent: a failed block does not stop the others.
- Blocks are labelled rep-1, rep-2, ... across your answer in the report,
  each with its explanation beside its result.
- A block that cannot be read (a missing <<<END>>>, a REPLACE without
  SEARCH, a FILE without an edit) is reported with its line and the fix;
  the rest of your answer still runs.
- To delete or move a file, give the user the shell commands in prose:
  edit blocks only change and create files.
)REPLACER";
}

}  // namespace clada::replacer_reader
