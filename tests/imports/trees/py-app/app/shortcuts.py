# everything the models define, under a shorter module name
from app.models import *  # noqa: F403
