"""Memory accounting for tests/reliability/test_soak.py, on the PYTHONPATH of the server
under test only: with ``SPECWARD_TEST_MEMFILE`` set, the server traces its allocations
(``tracemalloc``, one frame) and, on SIGUSR1, appends the bytes still allocated after a
full collection to that file. Resident memory also holds the allocator's high-water mark;
this counts only what is alive."""

import os
import sys

if os.environ.get("SPECWARD_TEST_MEMFILE") and "serve" in sys.orig_argv:
    import gc
    import signal
    import tracemalloc

    tracemalloc.start(1)

    def _report(*_):
        gc.collect()
        with open(os.environ["SPECWARD_TEST_MEMFILE"], "a") as fh:
            fh.write(f"{tracemalloc.get_traced_memory()[0]}\n")

    signal.signal(signal.SIGUSR1, _report)
