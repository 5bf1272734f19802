// UTF-8 checks for fs-ops: text edits refuse files that are not UTF-8 text,
// and every string handed back to the caller must be valid UTF-8 (JSON).
// The functions are core's (src/utf8.h), named here as fs-ops has always
// called them.
#ifndef CLADA_PROJ_COMP_FS_OPS_SRC_UTF8_H_
#define CLADA_PROJ_COMP_FS_OPS_SRC_UTF8_H_

#include "proj/comp/core/src/utf8.h"

namespace clada::fs_ops::internal {

using core::IsValidUtf8;
using core::ToValidUtf8;
using core::Utf8Prefix;

}  // namespace clada::fs_ops::internal

#endif  // CLADA_PROJ_COMP_FS_OPS_SRC_UTF8_H_
