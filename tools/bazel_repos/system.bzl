"""Repository rules that resolve every external dependency from the local system.

Nothing here downloads: rules_cc comes from Debian's bazel-rules-cc, libraries
from Debian's -dev packages through pkg-config.
"""

def _debian_rules_cc_impl(ctx):
    src = ctx.path("/usr/share/bazel/rules/cc")
    if not src.exists:
        fail("bazel-rules-cc is missing: apt-get install bazel-rules-cc")
    ctx.execute(["cp", "-r", str(src) + "/.", "."])

    # Bazel 4.2.3's @bazel_tools lacks use_cpp_toolchain(); the toolchain type
    # label it returns is what these two rules need.
    for f in [
        "cc/private/rules_impl/compiler_flag.bzl",
        "cc/private/rules_impl/cc_flags_supplier.bzl",
    ]:
        text = ctx.read(f)
        text = text.replace(
            '"find_cpp_toolchain", "use_cpp_toolchain")',
            '"find_cpp_toolchain")',
        )
        text = text.replace(
            "use_cpp_toolchain()",
            '["@bazel_tools//tools/cpp:toolchain_type"]',
        )
        ctx.file(f, text)

debian_rules_cc = repository_rule(implementation = _debian_rules_cc_impl, local = True)

def _empty_coverage_tools_impl(ctx):
    ctx.file("WORKSPACE", "")
    ctx.file("BUILD", """package(default_visibility = ["//visibility:public"])
filegroup(name = "coverage_report_generator")
filegroup(name = "lcov_merger")
""")

empty_coverage_tools = repository_rule(implementation = _empty_coverage_tools_impl)

# Libraries that stay shared even in a static link: the C runtime's own.
_SYSTEM_LIBS = ["-lrt", "-ldl", "-lm", "-lpthread", "-pthread", "-latomic", "-lc"]

def _pkg_config_libs(ctx, modules, static = False):
    if not modules:
        return []
    args = ["pkg-config", "--libs"] + (["--static"] if static else []) + modules
    res = ctx.execute(args)
    if res.return_code != 0:
        fail("pkg-config cannot find %s: %s (install the Debian -dev package)" % (modules, res.stderr))
    opts = [o for o in res.stdout.strip().split(" ") if o]
    if not static:
        return opts

    # Link the library's own archives statically (a few large objects load
    # faster than dozens of shared libraries) and the C runtime dynamically.
    libs = [o for o in opts if o.startswith("-l") and o not in _SYSTEM_LIBS]
    system = [o for o in opts if o in _SYSTEM_LIBS]
    return ["-Wl,-Bstatic"] + libs + ["-Wl,-Bdynamic"] + system

def _pkg_config_library_impl(ctx):
    build = ['package(default_visibility = ["//visibility:public"])', ""]
    linkopts = ctx.attr.linkopts or _pkg_config_libs(ctx, ctx.attr.modules, ctx.attr.static)
    build.append('cc_library(name = "lib", linkopts = %s, deps = %s)' % (repr(linkopts), repr(ctx.attr.deps)))
    for name, opts in ctx.attr.extra_targets.items():
        build.append('cc_library(name = "%s", linkopts = %s, deps = [":lib"])' % (name, repr(opts)))
    ctx.file("WORKSPACE", "")
    ctx.file("BUILD", "\n".join(build) + "\n")

pkg_config_library = repository_rule(
    implementation = _pkg_config_library_impl,
    attrs = {
        "modules": attr.string_list(),
        "static": attr.bool(doc = "link the library's archives statically"),
        "linkopts": attr.string_list(doc = "explicit link options instead of pkg-config's"),
        "extra_targets": attr.string_list_dict(doc = "target name -> raw linkopts"),
        "deps": attr.string_list(doc = "labels of the main repository linked with the library"),
    },
    local = True,
)
