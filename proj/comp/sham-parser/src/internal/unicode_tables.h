// Unicode general-category tests for block keys. They reproduce what
// JavaScript's /\p{L}/u and /\p{N}/u match; the tables are generated from
// Node's ICU by tools/gen_unicode_tables.js.
#ifndef CLADA_PROJ_COMP_SHAM_PARSER_SRC_INTERNAL_UNICODE_TABLES_H_
#define CLADA_PROJ_COMP_SHAM_PARSER_SRC_INTERNAL_UNICODE_TABLES_H_

namespace clada::sham_parser::internal {

// The Unicode version the tables were generated from, e.g. "17.0".
extern const char kUnicodeVersion[];

// True for code points in general category L (Lu, Ll, Lt, Lm, Lo).
bool IsUnicodeLetter(char32_t cp);

// True for code points in general category N (Nd, Nl, No).
bool IsUnicodeNumber(char32_t cp);

}  // namespace clada::sham_parser::internal

#endif  // CLADA_PROJ_COMP_SHAM_PARSER_SRC_INTERNAL_UNICODE_TABLES_H_
