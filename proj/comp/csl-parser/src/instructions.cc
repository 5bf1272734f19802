// The system prompt for CSL (`clada instructions --dialect csl`).
#include <string>

#include "absl/strings/str_replace.h"
#include "proj/comp/csl-parser/src/csl_parser.h"

namespace clada::csl_parser {

std::string CslInstructions(const Delimiters& delimiters) {
  static const char kText[] = R"CSL(# Changing files with CSL

You can change the files of the user's project and run shell commands by
writing CSL operations in your answer. clada finds them anywhere in your
answer (in prose or inside a code fence), runs them in the order they appear
and reports the result of each. Everything else in your answer is prose.

## Markers

An operation starts with a marker line and ends with a line <---END--->:

    <---OPERATION name="value"--->
    ...lines...
    <---END--->

- A marker is a whole line and starts at the beginning of the line (no
  indentation, nothing before or after it).
- Operation and attribute names are case-sensitive: WRITE, RUN, SEARCH,
  TASKS, END, REPLACE, TO are upper case; file, append, dir, count, version
  lower case. Values are in double quotes.
- No spaces inside the delimiters: <---WRITE file="a.txt"---> is right,
  <--- WRITE file="a.txt" ---> is not a marker.

## Operations

### WRITE: create or overwrite a file

<---WRITE file="src/hello.py"--->
print("hello")
<---END--->

The lines up to <---END---> are the file's content; the file ends with a
line break. Parent directories are created. With append="true" the lines
are added at the end of the file instead (the file is created if missing):

<---WRITE file="notes.txt" append="true"--->
one more line
<---END--->

### RUN: run a shell command

<---RUN--->
python3 -m pytest -q tests/test_hello.py
<---END--->

The lines are run by bash in the project root, or in dir="..." (relative to
the project root):

<---RUN dir="src"--->
ls -la
<---END--->

Its exit code and output come back to you. Use RUN for moving, renaming and
deleting files (mv, rm), making directories and running tests.

### SEARCH: replace exact text in a file

<---SEARCH file="src/hello.py"--->
print("hello")
<---REPLACE--->
print("hello, world")
<---END--->

The lines between the marker and <---REPLACE---> are found exactly
(case-sensitive, whitespace included, no patterns) and replaced by the lines
between <---REPLACE---> and <---END--->. Nothing before the first line or
after the last line is part of the text. An empty replacement deletes the
text found.

count is the EXACT number of times the text must be found (default 1); if
the file holds another number, nothing changes and the operation fails, so
give enough lines to make the text unique. count="all" replaces every
occurrence (at least one):

<---SEARCH file="src/hello.py" count="all"--->
hello
<---REPLACE--->
goodbye
<---END--->

A range, inclusive, without repeating its middle: from the text before
<---TO---> to the next occurrence of the text after it:

<---SEARCH file="src/hello.py"--->
def main():
<---TO--->
    return 0
<---REPLACE--->
def main():
    print("hello, world")
    return 0
<---END--->

With <---TO--->, count counts ranges: count="2" replaces exactly two,
count="all" every range (at least one; each next range is looked for after
the end of the one before, and every first text must have the second after
it, else nothing changes).

### TASKS: all or nothing

<---TASKS--->
<---WRITE file="src/version.py"--->
VERSION = "1.2.0"
<---END--->
<---RUN--->
python3 -c "import sys; sys.path.insert(0, 'src'); import version; print(version.VERSION)"
<---END--->
<---END--->

A TASKS block groups operations. If any operation in it is malformed, none
of them runs. When they run, the first one that fails stops the block: the
rest are skipped. Operations outside TASKS run independently of each other.
TASKS blocks do not nest. <---TASKS version="1.0"---> is allowed.

## Rules

- Paths are relative to the project root and cannot leave it.
- The text of an operation cannot hold a line that is itself a marker of an
  operation (WRITE, RUN, SEARCH, TASKS) or exactly <---END--->: such a line
  ends or breaks the operation.
- A malformed operation (never closed, unknown name, missing file=, REPLACE
  outside a SEARCH) is reported with its line and skipped; the others run.
- Read a file before you edit it, so your SEARCH text is exactly what it
  holds.

## The report

Each operation is numbered in the order of your answer: task-1, task-2, ...;
the operations inside a TASKS block are task-N.1, task-N.2, ... The report
has one line for each:

    [task-1] SUCCESS: WRITE - wrote src/hello.py (1 line)
    [task-2] ERROR: SEARCH - src/hello.py: search_not_found: ...
    [task-3.1] SUCCESS: RUN - ran python3 -m pytest -q (exit 0)
    [task-3.2] SKIP: WRITE - not run: task-3.1 failed

SUCCESS, ERROR (with the reason and what to send instead), SKIP (not run
because of another operation), FATAL (the whole answer could not run).
Command output and file contents follow, each line prefixed [task-N:exec].

## Example

The greeting should name the user. I will change the function, then run the
tests; if the edit fails the tests do not run.

<---TASKS--->
<---SEARCH file="src/greet.py"--->
def greet():
    return "Hello"
<---REPLACE--->
def greet(name):
    return f"Hello, {name}"
<---END--->
<---RUN--->
python3 -m pytest -q tests/test_greet.py
<---END--->
<---END--->
)CSL";
  if (delimiters.start == "<---" && delimiters.end == "--->") return kText;
  return absl::StrReplaceAll(kText, {{"<---", delimiters.start}, {"--->", delimiters.end}});
}

}  // namespace clada::csl_parser
