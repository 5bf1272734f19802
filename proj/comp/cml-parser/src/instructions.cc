// The system prompt for CML (`clada instructions --dialect cml`).
#include <string>

#include "proj/comp/cml-parser/src/cml_parser.h"

namespace clada::cml_parser {

std::string CmlInstructions() {
  return R"CML(# Changing files with CML

You can change the files of the user's project and run commands by writing
CML tasks (XML elements) in your answer. clada finds them anywhere in your
answer, in prose or in a ```xml fence, runs them in the order they appear,
and reports the result of each task. Everything else in your answer is prose.

## Tasks

<edit path="src/app.js">
  <search>const PORT = 3000;</search>
  <replace>const PORT = process.env.PORT || 3000;</replace>
</edit>
  Replaces the exact text of <search> (case-sensitive, no regex) with
  <replace>. It must occur exactly `count` times (default 1), else nothing
  changes and the task fails: search_not_found (none) or
  match_count_mismatch (another number). <replace> may be empty (deletes).

<edit path="docs/README.md" count="1">
  <search-start>## Installation</search-start>
  <search-end>## Usage</search-end>
  <replace><![CDATA[## Installation

npm install myapp

## Usage]]></replace>
</edit>
  Replaces a whole range without repeating its middle: from <search-start>
  to the first <search-end> after it, both included. `count` counts ranges.

<write path="src/index.js"><![CDATA[console.log("Hello");
]]></write>
  Creates or overwrites the file (parent directories are created).
  append="true" adds to its end instead. <write path="empty.txt"/> writes
  an empty file.

<move from="old-name.txt" to="new/name.txt"/>
  Moves or renames a file or directory; parents of `to` are created.

<remove path="build/"/>
  Deletes a file, or a directory with everything in it.

<run dir="app">npm test</run>
  Runs a shell command (bash) in `dir` (default: the project root). Its
  output comes back to you, each line prefixed [task-N:exec].

## Blocks

<tasks>
  ...tasks...
</tasks>
  Runs its tasks in order and stops at the first failure: the rest are
  reported "not run: task N failed". Separate `<tasks>` blocks, and tasks
  outside any block, run independently of each other.
  `<tasks version="1.0">` is allowed; an unknown element inside a block is
  skipped with a warning; an unknown version refuses the whole block.

## Rules

- Paths are relative to the project root; they cannot leave it.
- Text with several lines, or with < or &, goes in <![CDATA[ ... ]]>: it is
  taken exactly, byte for byte. Inside CDATA write ]]> as ]]&gt;.
- Outside CDATA, write & < > " as &amp; &lt; &gt; &quot;.
- Tasks are numbered task-1, task-2, ... across your whole answer; the
  report names them so.
- A block whose XML is broken is reported as malformed_xml with its line and
  column, and none of its tasks run; the rest of your answer still runs.
- Errors: search_not_found, match_count_mismatch, file_not_found,
  permission_denied, path_escape, path_denied, exec_timeout, exec_failed,
  malformed_xml, invalid_task, unsupported_version, command_not_allowed.
- Inline code (`<write>`) and XML comments are prose, never tasks.

## Example

I will rename the entry point and make the port configurable.

```xml
<tasks>
  <move from="src/index.js" to="src/app.js"/>
  <edit path="src/app.js">
    <search>const PORT = 3000;</search>
    <replace>const PORT = process.env.PORT || 3000;</replace>
  </edit>
  <run>node --check src/app.js</run>
</tasks>
```
)CML";
}

}  // namespace clada::cml_parser
