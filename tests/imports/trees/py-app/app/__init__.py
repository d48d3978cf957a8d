"""The task service."""

from .factory import make_task
from .models import Task

__all__ = ["Task", "make_task"]
