"""Supplement S1 in the warehouse: Table S1's ranking and Tables S2/S3 recomputed independently from
the landed Parquet (pandas, sklearn, numpy), and the FER baselines kept out of the VLM-only pools."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import REFERENCE, query_warehouse
from rater1001.paths import REPO_ROOT
from sklearn.metrics import cohen_kappa_score
from stats_helpers import read_landed

FER = {"posterv2", "mobilevit", "efficientnet", "beit", "emonet"}


def test_paper_seed_is_the_transcribed_tables():
    seed = pd.read_csv(REPO_ROOT / "seeds" / "paper_supplement_s1.csv")
    s1 = pd.read_csv(REFERENCE / "paper_tables" / "tableS1_fer_vs_vlm.tsv", sep="\t")
    got = seed[seed["paper_table"] == "Table S1"]
    assert list(got["paper_model"]) == list(s1["모델"]) and list(got["paper_rank"]) == list(s1["순위"])
    assert np.allclose(got["accuracy"], s1["정확도"]) and np.allclose(got["kappa"], s1["kappa"])
    for table, name in (("Table S2", "tableS2_fer_valence.tsv"), ("Table S3", "tableS3_fer_arousal.tsv")):
        ref = pd.read_csv(REFERENCE / "paper_tables" / name, sep="\t")
        got = seed[seed["paper_table"] == table]
        assert list(got["paper_model"]) == list(ref["Model"])
        assert np.allclose(got["pearson_r"], ref["Pearson r"]) and np.allclose(got["mae"], ref["MAE"])
    catalog = pd.read_csv(REPO_ROOT / "seeds" / "model_condition_catalog.csv")
    assert set(seed["condition_id"]) <= set(catalog["condition_id"])


@pytest.fixture(scope="module")
def landed(demo_warehouse):
    p = demo_warehouse
    preds = read_landed(p, "model_predictions").merge(
        read_landed(p, "stimuli")[["image_id", "category"]], on="image_id", suffixes=("", "_true")
    )
    human = read_landed(p, "human_ratings").groupby("image_id")[["valence", "arousal"]].mean()
    return preds.merge(human, left_on="image_id", right_index=True, suffixes=("", "_human"))


def test_table_s1_ranks_all_13_conditions_by_accuracy(demo_warehouse, landed):
    s1 = query_warehouse(demo_warehouse, "select * from fer_vlm_ranking order by rank").set_index("condition_id")
    assert len(s1) == 13 and set(s1.index[s1["kind"] == "fer"]) == FER
    assert (s1["data_origin"] == "SIMULATED").all() and s1["paper_rank"].notna().all()
    for cid, g in landed.groupby("condition_id"):
        assert s1.loc[cid, "accuracy"] == pytest.approx((g["category"] == g["category_true"]).mean())
        assert s1.loc[cid, "kappa"] == pytest.approx(cohen_kappa_score(g["category_true"], g["category"]))
    expected_rank = s1["accuracy"].rank(ascending=False, method="min").astype(int)
    assert (s1["rank"] == expected_rank).all()


def test_tables_s2_s3_are_the_fer_rows_of_the_dimensional_agreement(demo_warehouse, landed):
    s23 = query_warehouse(demo_warehouse, "select * from fer_dimensional_agreement")
    assert sorted(map(tuple, s23[["dimension", "condition_id"]].to_numpy())) == sorted(
        (d, c) for d in ("valence", "arousal") for c in ("mobilevit", "efficientnet", "emonet")
    )
    for _, row in s23.iterrows():
        g = landed[landed["condition_id"] == row["condition_id"]]
        d = row["dimension"]
        assert row["pearson_r"] == pytest.approx(np.corrcoef(g[d], g[f"{d}_human"])[0, 1])
        assert row["mae"] == pytest.approx((g[f"{d}_human"] - g[d]).abs().mean())
        assert abs(row["pearson_r"] - row["paper_pearson_r"]) < 0.03 and abs(row["mae"] - row["paper_mae"]) < 0.06


def test_fer_conditions_stay_out_of_the_vlm_only_pools(demo_warehouse):
    q = lambda sql: query_warehouse(demo_warehouse, sql)  # noqa: E731
    pools = q("select * from int_condition_pools")
    assert set(pools["pool"]) == {"inter_model_sd", "replaceability", "ablations_4a", "demographics", "rt_accuracy"}
    # every pool holds the 8 VLM conditions, except Table 6's: the paper's 7 VLMs (no NoThink repeat)
    sizes = pools.groupby("pool").size()
    assert not set(pools["condition_id"]) & FER and sizes.drop("inter_model_sd").eq(8).all()
    assert sizes["inter_model_sd"] == 7
    table6 = q("select distinct conditions, k from response_diversity_k_human")
    assert all(set(c.split(",")).isdisjoint(FER) and len(c.split(",")) == 7 for c in table6["conditions"])
    assert (table6["k"] == 7).all()
    assert set(q("select distinct k from response_diversity_images")["k"]) == {7}
    assert not set(q("select distinct condition_id from replaceability_inputs")["condition_id"]) & FER
    assert not set(q("select distinct condition_id from ablation_prediction_rows")["condition_id"]) & FER
    for mart in ("demographic_slices", "demographic_glmm_lrt", "demographic_stratified_anova"):
        assert not set(q(f"select distinct condition_id from {mart}")["condition_id"]) & FER, mart
    # ...but they are ordinary rows of the classification and dimensional agreement marts
    assert FER <= set(q("select distinct condition_id from classification_summary")["condition_id"])
