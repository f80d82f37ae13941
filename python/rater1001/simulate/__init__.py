"""The embedded demo study: a seeded, SIMULATED study with the paper's design that lands in the
landing zone exactly like real data (`demo.simulate_study`; docs/simulate.md)."""

from .demo import SimulationSummary, simulate_study
from .design import DesignError
from .profiles import ProfileError, Profiles, load_profiles

__all__ = ["simulate_study", "SimulationSummary", "DesignError", "ProfileError", "Profiles", "load_profiles"]
