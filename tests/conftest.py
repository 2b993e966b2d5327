"""Shared test configuration.

Hypothesis runs derandomized so the suite gives the same verdict on every run
and every machine; the example budget keeps the property tests within seconds.
"""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "cvlib",
    derandomize=True,
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("cvlib")
