"""The porting lints: what each structural matcher a rule's `match` names looks for, one module per
matcher with its parameter schema beside its code (registry.py lists them), and what a hit becomes
(findings.py). The matchers read syntax through hipport.lints.context's interfaces and know no
parser: the tree-sitter backend runs the NAME and LITERAL matchers at the scanner's candidates, the
engine the FILE matchers on the parsed file's syntax tree, and the rule loader accepts a `[[lint]]`
only for a registered matcher."""
