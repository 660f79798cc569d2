"""Shared test setup: hypothesis profiles.

Choose one with the environment variable ``HYPOTHESIS_PROFILE`` (``ci``, the default, ``dev`` or ``slow``).
"""

import os

from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

settings.register_profile("ci", max_examples=300, **_COMMON)
settings.register_profile("dev", max_examples=3000, **_COMMON)
settings.register_profile("slow", max_examples=3000, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# The stores of the ingestion tests (tests/ingest, tests/cli): the store_uri fixture, and a PostgreSQL server for the
# session when a test asks for one.
pytest_plugins = ["support.ingest_stores"]
