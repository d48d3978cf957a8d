from app.models import Task, User

# only Task is public: a star import of this module does not bring User
__all__ = ["Task"]
