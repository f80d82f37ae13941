"""CPU seconds of the bootstrap p_sig (stats.bootstrap.p_sig_many) on synthetic studies of the
demo's shape at 10x and 100x, to see how its cost grows with the images.

Per scale: 1,440 x scale images per dimension, 11 conditions, 50 humans per image spread over up
to 9 rating values (per-(image, value) counts, as int_image_value_counts gives them), scoped as
bootstrap_psig scopes them: every image, then 6 categories of a sixth each. Prints, per scale,
CPU seconds (user + system of every thread) and wall seconds of one dimension's p_sig at the
chosen replicates, CPU per replicate and per drawn difference (replicates x images x
conditions), and the growth to the next scale (CPU ratio / images ratio; 1.0 linear). Compare
two checkouts by running it from each (PYTHONPATH=<tree>/python) in the same minutes.

    .venv/bin/python benchmarks/bench_psig.py --scales 10 100 [--replicates 200] [--threads 1]
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np
from rater1001.stats import bootstrap

CONDITIONS, VALUES, HUMANS, CATEGORIES = 11, 9, 50, 6


def study(images: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(conditions x images model |z|, images x values human LOO |z|, images x values counts)."""
    rng = np.random.default_rng(seed)
    centre = rng.integers(2, VALUES - 1, images)
    values = np.arange(1, VALUES + 1)
    # each image's 50 ratings around its centre: counts per value, some values unused
    ratings = np.clip(centre[:, None] + np.rint(rng.normal(0, 1.3, (images, HUMANS))), 1, VALUES).astype(int)
    counts = np.stack([(ratings == v).sum(axis=1) for v in values], axis=1)
    mean, sd = ratings.mean(axis=1), ratings.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        # leave-one-out |z| of a human with value v: the other 49 ratings' mean and SD
        s1, s2 = ratings.sum(axis=1)[:, None], (ratings.astype(float) ** 2).sum(axis=1)[:, None]
        loo_mean = (s1 - values) / (HUMANS - 1)
        loo_var = (s2 - values**2 - (HUMANS - 1) * loo_mean**2) / (HUMANS - 2)
        human = np.abs((values - loo_mean) / np.sqrt(loo_var))
        model_values = np.clip(centre[None] + rng.integers(-2, 3, (CONDITIONS, images)), 1, VALUES)
        model = np.abs((model_values - mean) / sd)
    human[counts == 0] = np.nan
    return model, human, counts


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def one_dimension(model, human, counts, replicates: int) -> tuple[float, float]:
    """CPU and wall seconds of bootstrap_psig's calls for one dimension: every image, then each category."""
    n = model.shape[1]
    scopes = [slice(None)] + [slice(c * n // CATEGORIES, (c + 1) * n // CATEGORIES) for c in range(CATEGORIES)]
    c0, t0 = cpu(), time.perf_counter()
    for scope in scopes:
        bootstrap.p_sig_many(model[:, scope], human[scope], replicates=replicates, weights=counts[scope])
    return cpu() - c0, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[10, 100])
    ap.add_argument("--replicates", type=int, default=200)
    ap.add_argument("--threads", type=int, help="threads of the kernel (default: one per core)")
    args = ap.parse_args()
    if args.threads and hasattr(bootstrap, "_threads"):
        bootstrap._threads = lambda: args.threads
    # warm-up: the compiled kernels load (or compile) once per process, not per scale
    one_dimension(*study(300), replicates=5)
    print(f"{'scale':>5} {'images':>8} {'CPU s':>8} {'wall s':>8} {'CPU ms/rep':>10} {'ns/diff':>8} {'growth':>7}")
    last = None
    for scale in args.scales:
        images = 1440 * scale
        seconds, wall = one_dimension(*study(images), replicates=args.replicates)
        per_diff = seconds / (args.replicates * 2 * images * CONDITIONS) * 1e9
        growth = "" if last is None else f"{(seconds / last[1]) / (images / last[0]):.2f}"
        print(
            f"{scale:>5} {images:>8,} {seconds:>8.2f} {wall:>8.2f} {seconds / args.replicates * 1e3:>10.1f} "
            f"{per_diff:>8.2f} {growth:>7}",
            flush=True,
        )
        last = (images, seconds)


if __name__ == "__main__":
    main()
