"""Warp *_sync builtins in the shim header, from the version-gated rewrite rules
(rules/warp.toml: the HIP release that brought each builtin, its maskless form).

HIP before 6.2 has only maskless forms (__shfl_down, __ballot, ...); 6.2 to 6.4
declare the *_sync builtins when HIP_ENABLE_WARP_SYNC_BUILTINS is defined first,
7.0 by default. Where a port rewrites each call to the maskless form, the shim
header defines, for HIP before the release, a wrapper with the CUDA name that
drops the mask and calls the maskless form. AMD wavefronts have no independent
thread scheduling, so that is exact for a full mask; a partial mask is not
honoured, and the header says so. A builtin with no maskless form
(__match_any_sync) gets no wrapper: the header stops the build instead.
"""

from __future__ import annotations

from hipport.ruleset.lintrules import RewriteRule


def warp_fallback(rule: RewriteRule) -> str | None:
    """C++ for HIP releases before rule.since, or None when there is no honest one."""
    older, name = rule.older, rule.cuda
    if older is None:
        return None
    if rule.drop_argument is None:
        args = rule.older_arguments or ""
        return _nullary(name, older, args)
    if rule.drop_argument != 0:
        return None  # only a leading mask is dropped by a generic wrapper
    text = (
        "template <typename MaskT, typename... Args>\n"
        f"__device__ inline auto {name}(MaskT, Args... args) -> decltype({older}(args...)) {{\n"
        f"  return {older}(args...);\n"
        "}"
    )
    if rule.min_arguments <= rule.drop_argument:
        text += "\n" + _nullary(name, older, "")  # the mask is optional: __syncwarp()
    return text


def _nullary(name: str, older: str, args: str) -> str:
    return f"__device__ inline auto {name}() -> decltype({older}({args})) {{\n  return {older}({args});\n}}"
