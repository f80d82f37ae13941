"""Great Expectations, imported on first use: the checks build its expectations (checks.py) and
the run validates them (gx_run.py)."""

from __future__ import annotations

import os


def great_expectations():
    """The `great_expectations` module, imported on first use: the import takes about a second,
    which every command and test that imports the gate without running it would pay."""
    # Read by GX when the context config leaves analytics unset; set both for belt and braces.
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
    import great_expectations as gx

    return gx
