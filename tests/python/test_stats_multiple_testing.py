"""rater1001.stats.multiple_testing: the Benjamini-Yekutieli step-up worked by hand."""

from __future__ import annotations

import numpy as np
from rater1001.stats.multiple_testing import benjamini_yekutieli


def test_benjamini_yekutieli_step_up():
    # m = 4, c(4) = 25/12; thresholds k/4 * .05 / c = .006, .012, .018, .024
    p = np.array([0.011, 0.001, 0.5, 0.017])
    assert list(benjamini_yekutieli(p, 0.05)) == [True, True, False, True]
    # NaN never rejected but still counts in m: thresholds then use m = 4
    assert list(benjamini_yekutieli(np.array([0.001, np.nan, 0.0125, 0.9]), 0.05)) == [True, False, False, False]
