"""Suite-wide settings: a canary API key in the environment of every test and of every
process a test starts. No file specward writes may contain it
(tests/reliability/test_untrusted.py looks)."""

from __future__ import annotations

import os

CANARY_KEY = "sk-specward-canary-7f3a9c2e41d84b6f"
for _name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "SPECWARD_API_KEY"):
    os.environ[_name] = CANARY_KEY
