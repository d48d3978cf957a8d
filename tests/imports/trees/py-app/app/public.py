from app.limited import *  # noqa: F403
