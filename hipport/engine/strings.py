"""CUDA names inside string literals: kept by default, renamed with --port-strings.

A message such as "cudaMalloc failed" is text, so it stays as written unless the
user asks (--port-strings, or port-strings = true under [tool.hipport]). A name
passed to a symbol lookup (dlsym, cuGetProcAddress: rules/strings.toml) is looked
up at run time in a library, so it is never renamed: HP119 says so instead.
"""

from __future__ import annotations

from collections.abc import Iterator

from hipport.options import Options
from hipport.parse.sites import StringNameSite
from hipport.ruleset.model import RuleSet


def string_outcomes(
    sites: list[StringNameSite], rules: RuleSet, options: Options
) -> Iterator[tuple[StringNameSite, str | None, str | None]]:
    """(site, new text or None, HP119 message or None) for each site with something to do."""
    for site in sites:
        rule = rules.names.get(site.name)
        if rule is None:
            continue
        target = rule.roc if options.roc and rule.roc and rule.roc_in is None else rule.hip
        if site.call is not None and site.call in rules.symbol_lookups:
            hint = f"; under HIP the name is '{target}'" if target and target != site.name else ""
            yield (
                site,
                None,
                (
                    f"'{site.name}' is looked up by name at run time ({site.call}), so hipport "
                    f"leaves it as written{hint}"
                ),
            )
        elif options.port_strings and target is not None and target != site.name:
            yield site, target, None
