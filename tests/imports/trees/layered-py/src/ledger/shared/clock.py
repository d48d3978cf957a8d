import datetime


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat()
