from app.models import Task


def make_task(title: str) -> Task:
    return Task(title.strip())
