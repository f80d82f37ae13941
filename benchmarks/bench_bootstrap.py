"""Speed of the bootstrap p_sig (2,000 replicates at paper scale in seconds).

Times rater1001.stats.bootstrap.p_sig on 1,440 images x 50 humans (2,000 replicates) against a
baseline measured in the same run: the straightforward loop that calls scipy.stats.wilcoxon once
per replicate (timed on 200 replicates and scaled to 2,000). Prints both and the ratio.

    .venv/bin/python benchmarks/bench_bootstrap.py
"""

from __future__ import annotations

import time

import numpy as np
from rater1001.stats import bootstrap
from scipy import stats


def main() -> None:
    rng = np.random.default_rng(0)
    n_images, n_humans = 1440, 50
    human_abs_z = np.abs(rng.normal(size=(n_images, n_humans)))
    model_abs_z = np.abs(rng.normal(0.2, 1.1, size=n_images))

    t0 = time.perf_counter()
    result = bootstrap.p_sig(model_abs_z, human_abs_z, replicates=2000)
    ours = time.perf_counter() - t0

    loop_reps = 200
    t0 = time.perf_counter()
    hits = 0
    for _ in range(loop_reps):
        img = rng.integers(0, n_images, n_images)
        who = rng.integers(0, n_humans, n_images)
        p = stats.wilcoxon(model_abs_z[img] - human_abs_z[img, who], alternative="greater").pvalue
        hits += p < 0.05
    baseline = (time.perf_counter() - t0) * 2000 / loop_reps

    print(f"p_sig, 2,000 replicates x {n_images:,} images: {ours:.2f} s (p_sig = {result.p_sig:.3f})")
    print(f"baseline, scipy.stats.wilcoxon per replicate (scaled from {loop_reps}): {baseline:.2f} s")
    print(f"ratio baseline / ours: {baseline / ours:.1f}x")


if __name__ == "__main__":
    main()
