"""The rule model (names, lints, rewrites), the rule-file schema and the loader that builds it from rules/."""
