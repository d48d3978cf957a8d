_DEFAULTS = {"page_size": 50, "timezone": "UTC"}


def __getattr__(name: str) -> object:
    # settings are looked up lazily: any name may exist
    try:
        return _DEFAULTS[name]
    except KeyError:
        raise AttributeError(name) from None
