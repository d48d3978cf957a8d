from dataclasses import dataclass

DEFAULT_PRIORITY = 3


@dataclass
class Task:
    title: str
    priority: int = DEFAULT_PRIORITY


@dataclass
class User:
    name: str
