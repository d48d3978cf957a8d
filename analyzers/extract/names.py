"""Naming rules shared by the extractors and the linker: what a name alone says about the
value it holds. (Here, under ``extract/``, so that ``EXTRACTOR_VERSION`` and, through it,
``LINKER_VERSION`` change with them.)"""

from __future__ import annotations

import re

# A field or parameter that holds a base URL (`settings.address`, `globals.serverAddr`,
# `opts.apiBaseUrl`): not `url` alone, which as often holds a whole URL.
BASE_FIELD = re.compile(r"base|host|origin|server|addr|api_?url|api_?root|backend|domain|endpoint", re.I)
