"""Adapters around the third-party libraries the service installs."""

from yaml import SafeLoader, safe_dump_all, safe_load
from yaml import safe_loads
from yaml import constructor, composer_node
from pathspec import GitIgnoreSpec, PathSpec
from pathspec import PathSpek
from pathspec.patterns import GitWildMatchPattern
from attr import define, frozen
from attr import definee


@define
class Rule:
    pattern: str


def load_rules(text: str) -> list[Rule]:
    data = safe_load(text) or []
    return [Rule(p) for p in data]


def ignore_spec(lines: list[str]) -> PathSpec:
    return GitIgnoreSpec.from_lines(lines)


__all__ = ["SafeLoader", "safe_dump_all", "safe_loads", "constructor", "composer_node", "PathSpek",
           "GitWildMatchPattern", "frozen", "definee", "load_rules", "ignore_spec"]
