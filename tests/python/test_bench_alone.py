"""The alone phase's arithmetic (benchmarks/alone.py) on fixed numbers: medians, own CPU, spreads,
growth and its noise interval, the verdict. Nothing here is timed."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import duckdb
import pytest
from hypothesis import given
from hypothesis import strategies as st

_BENCHMARKS = Path(__file__).parents[2] / "benchmarks"
# the benchmarks import each other as scripts beside them do
sys.path.insert(0, str(_BENCHMARKS))
_SPEC = importlib.util.spec_from_file_location("alone", _BENCHMARKS / "alone.py")
alone = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(alone)


def _runs(*pairs):
    return [{"node": n, "cpu": c, "wall": n, "rss_kib": 2**20} for n, c in pairs]


def test_summary_takes_medians_and_subtracts_the_baselines_cpu():
    runs = {
        alone.BASELINE: _runs((0.2, 0.5), (0.1, 0.7), (0.3, 0.6)),
        "m": _runs((3.0, 2.6), (2.0, 1.6), (2.5, 2.1)),
        "long": _runs((40.0, 30.6)),
    }
    s = alone.summarize(runs)
    assert s["m"]["node"] == 2.5 and s["m"]["cpu"] == 2.1
    assert s["m"]["own_cpu"] == pytest.approx(1.5)  # 2.1 - 0.6
    assert s["m"]["node_spread"] == pytest.approx(1.0 / 2.5)
    assert s["m"]["own_cpu_spread"] == pytest.approx((2.0 - 1.0) / 1.5)
    assert s["long"]["n"] == 1 and s["long"]["node_spread"] is None and s["long"]["own_cpu"] == pytest.approx(30.0)
    assert s["m"]["rss_gib"] == 1.0


def test_typical_spread_is_the_median_over_repeated_models_without_the_baseline():
    s = {
        alone.BASELINE: {"node_spread": 9.0},
        "a": {"node_spread": 0.1},
        "b": {"node_spread": 0.3},
        "c": {"node_spread": 0.2},
        "d": {"node_spread": None},
    }
    assert alone.typical_spread(s, "node") == pytest.approx(0.2)
    assert alone.typical_spread({"d": {"node_spread": None}}, "node") == 0.0


def _fig(node, spread):
    return {"node": node, "node_spread": spread}


def test_growth_linear_quadratic_and_the_interval():
    # 10x the ratings: 2 s -> 20 s is linear, 2 s -> 200 s grows 10 times the data
    assert alone.growth(_fig(2.0, 0.0), _fig(20.0, 0.0), 10.0, "node", (0, 0)) == {
        "growth": 1.0,
        "low": 1.0,
        "high": 1.0,
    }
    g = alone.growth(_fig(2.0, 0.2), _fig(22.0, None), 10.0, "node", (0.5, 0.1))
    assert g["growth"] == pytest.approx(1.1)
    # small +- 20 %, large (one run: the project's typical 0.1) +- 10 %
    assert g["low"] == pytest.approx((22 * 0.9 / (2 * 1.2)) / 10)
    assert g["high"] == pytest.approx((22 * 1.1 / (2 * 0.8)) / 10)
    assert math.isnan(alone.growth(_fig(0.0, None), _fig(1.0, None), 10.0, "node", (0, 0))["growth"])
    # a spread of 1 or more: the smaller figure's low end 0 (high end infinite), the larger's at least 0
    wide = alone.growth(_fig(1.0, 1.5), _fig(10.0, 2.0), 10.0, "node", (0, 0))
    assert wide["growth"] == 1.0 and wide["low"] == 0.0 and wide["high"] == math.inf


@given(
    a=st.floats(0.01, 1e3),
    b=st.floats(0.01, 1e4),
    ratio=st.floats(1.5, 100),
    ea=st.floats(0, 1.5),
    eb=st.floats(0, 1.5),
    k=st.floats(0.1, 10),
)
def test_growth_properties(a, b, ratio, ea, eb, k):
    g = alone.growth(_fig(a, ea), _fig(b, eb), ratio, "node", (0, 0))
    assert g["growth"] == pytest.approx(b / a / ratio)
    assert g["low"] <= g["growth"] * (1 + 1e-12) and g["growth"] <= g["high"] * (1 + 1e-12)
    # a common factor (a slower machine) leaves growth and interval as they were
    h = alone.growth(_fig(a * k, ea), _fig(b * k, eb), ratio, "node", (0, 0))
    assert h == pytest.approx(g)


def _row(model, node, low, cpu=0.5, cpu_low=0.4):
    return {
        "model": model,
        "node": {"growth": node, "low": low, "high": node + 1},
        "own_cpu": {"growth": cpu, "low": cpu_low, "high": 2},
    }


def test_verdict_names_models_above_one_and_those_beyond_noise():
    rows = [_row("linear", 1.0, 0.9), _row("noisy", 1.2, 0.95), _row("worse", 1.6, 1.3, cpu=1.1, cpu_low=1.05)]
    v = alone.verdict(rows)
    assert v["node"] == {"above_1": ["noisy", "worse"], "beyond_noise": ["worse"]}
    assert v["own_cpu"] == {"above_1": ["worse"], "beyond_noise": ["worse"]}


def test_the_floor_is_no_model_and_a_model_beyond_it_is_named():
    floor = {
        "model": alone.FLOOR,
        "node": {"growth": 1.35, "low": 1.2, "high": 1.5},
        "own_cpu": {"growth": 1.3, "low": 1.1, "high": 1.4},
    }
    rows = [_row("like_the_floor", 1.4, 1.3), _row("worse", 2.0, 1.6, cpu=1.5, cpu_low=1.45), floor]
    v = alone.verdict(rows)
    assert v["node"] == {
        "above_1": ["like_the_floor", "worse"],
        "beyond_noise": ["like_the_floor", "worse"],
        "beyond_floor": ["worse"],
    }
    assert v["own_cpu"]["beyond_floor"] == ["worse"]
    assert "beyond_floor" not in alone.verdict(rows[:2])["node"]


def test_the_floors_cpu_is_its_own_and_it_runs_on_the_warehouse(tmp_path):
    runs = {alone.BASELINE: _runs((0.1, 0.5)), alone.FLOOR: _runs((0.2, 0.3), (0.4, 0.5))}
    assert alone.summarize(runs)[alone.FLOOR]["own_cpu"] == pytest.approx(0.4)  # no baseline taken off
    (tmp_path / "warehouse").mkdir()
    con = duckdb.connect(str(tmp_path / "warehouse" / "rater1001.duckdb"))
    con.execute(
        "create table int_human_ratings_long as select 'i' || (range % 7) as image_id, 'v' as dimension, range % 5 as rating from range(1000)"
    )
    con.close()
    runs = alone.floor_runs(tmp_path, repeats=2)
    assert len(runs) == 2 and all(r["node"] > 0 and r["cpu"] >= 0 for r in runs)


def test_growth_rows_leave_out_the_baseline_and_sort_by_the_larger_projects_seconds():
    one = {"n": 3, "node": 1.0, "node_spread": 0.1, "own_cpu": 0.5, "own_cpu_spread": 0.2}
    small = {alone.BASELINE: one, "a": one, "b": one, "only_small": one}
    large = {alone.BASELINE: one, "a": one | {"node": 12.0}, "b": one | {"node": 30.0}}
    rows = alone.growth_rows(small, large, 10.0)
    assert [r["model"] for r in rows] == ["b", "a"]
    assert rows[0]["node"]["growth"] == pytest.approx(3.0)
    assert rows[1]["own_cpu"]["growth"] == pytest.approx(0.1)


def test_reached_and_the_build_record(tmp_path):
    assert alone.reached({"a": 0.4, "b": 2.0, "c": 0.5}, 0.5) == ["b", "c"]
    (tmp_path / "target").mkdir()
    results = [
        {"unique_id": "model.rater1001.alpha_delta", "execution_time": 3.0},
        {"unique_id": "test.rater1001.not_null_x", "execution_time": 9.0},
    ]
    record = tmp_path / "target" / "run_results.json"
    record.write_text(json.dumps({"args": {"which": "build"}, "results": results}))
    assert alone.build_node_seconds(tmp_path) == {"alpha_delta": 3.0}
    record.write_text(json.dumps({"args": {"which": "run"}, "results": results}))
    with pytest.raises(SystemExit, match="not a build's"):
        alone.build_node_seconds(tmp_path)


def test_missing_landing_names_the_path_a_view_reads(tmp_path):
    data = tmp_path / "raw" / "ratings.parquet"
    data.parent.mkdir()
    (tmp_path / "warehouse").mkdir()
    con = duckdb.connect(str(tmp_path / "warehouse" / "rater1001.duckdb"))
    con.execute(f"copy (select 1 as x) to '{data}' (format parquet)")
    con.execute(f"create view v as select * from read_parquet('{data}')")
    con.close()
    assert alone.missing_landing(tmp_path) == []
    data.unlink()
    assert alone.missing_landing(tmp_path) == [str(data)]
