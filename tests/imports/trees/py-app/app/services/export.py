from app.public import Task, User
from app.settings import page_size

try:
    import orjson_turbo_fast as fastjson
except ImportError:
    fastjson = None


def rows(tasks: list[Task], owner: User) -> list[str]:
    return [t.title for t in tasks][: int(str(page_size))] + [str(fastjson), owner.name]
