"""``python -m specward.server``: the same as the ``specward`` command."""

from .cli import main

raise SystemExit(main())
