"""The SIMULATED judge demo study: 56 Korean dialogue samples x 4 input variants, candidate responses
K/H/Q/M of planted quality and length against the human reference P, a simulated judge with a
known position bias and verbosity bias, a second judge that reads 한 poorly, a round-robin of the
model pairs for the first judge on the text variant, and a human-labelled subset.

Everything lands through the contract (landing.to_arrow / write_parquet_atomic / record_landing
with is_simulated=True), and the verdict columns come from the real pair plan (judge.plan) and the
real parser (judge.parse) reading the simulated raw answers, so `rater1001 build` sees exactly
what a real judge run would land.

Generating model of one judge call (one axis): with d = quality(shown 1st) - quality(shown 2nd) on
the logit scale and dl = (length 1st - length 2nd) / 100 characters, the judge writes "tie" with
probability tie_prob, otherwise "1" with probability
sigmoid(discrimination * c * d + position_bias + verbosity * dl), c the judge's multiplier for the
dialogue's category (1 unless planted). Among decisive verdicts the log-odds
of choosing the first response are exactly linear in d and dl; the tests recover position_bias and
verbosity from the landed verdicts (the overall axis uses the mean of the three axes' d). Human
annotators follow the same model without position or verbosity bias and see one order each.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...contract import CANDIDATES, DIALOGUES, JUDGE_VERDICTS
from ...landing import ManifestEntry, record_landing, to_arrow, write_parquet_atomic
from ...paths import ProjectPaths
from .catalog import load_axes, load_candidates
from .parse import VerdictParser
from .plan import build_plan
from .prompt import render, template_id

VARIANTS = ("text", "image", "audio_neutral", "audio_emotion")
CATEGORIES = ("기쁨", "슬픔", "분노", "불안", "당황", "상처", "그리움", "한")
AXES = ("empathy", "naturalness", "coherence")


@dataclass(frozen=True)
class JudgeProfile:
    judge_id: str
    judge_model: str
    position_bias: float  # log-odds added in favour of the response shown first
    verbosity: float  # log-odds per 100 characters of length advantage
    tie_prob: float
    discrimination: float  # log-odds per unit of true quality difference
    input_usd_per_mtok: float
    output_usd_per_mtok: float
    parse_failure_prob: float = 0.01
    # Discrimination multiplier per dialogue category: below 1 where the judge reads a category's
    # emotion poorly (the log's Bias 4, a foreign judge on Korean-specific emotions).
    category_discrimination: dict = field(default_factory=dict)


@dataclass(frozen=True)
class JudgeDemoParameters:
    n_samples: int = 56
    # Mean quality per candidate and axis (empathy, naturalness, coherence), logit scale, P = 0.
    quality: dict = field(
        default_factory=lambda: {
            "K": (-0.3, 0.1, -0.4),
            "H": (-0.8, -0.3, -0.9),
            "Q": (-1.0, -1.6, -0.8),
            "M": (-1.3, -1.9, -1.1),
            "P": (0.0, 0.0, 0.0),
        }
    )
    variant_effect: dict = field(
        default_factory=lambda: {"text": 0.0, "image": -0.1, "audio_neutral": -0.2, "audio_emotion": 0.15}
    )
    # Mean response length in characters (the verbosity lever), SD 40% of the mean.
    mean_length: dict = field(default_factory=lambda: {"K": 95, "H": 60, "Q": 75, "M": 55, "P": 45})
    response_sd: float = 0.6  # per-response quality spread (shared across axes at 60%)
    errored_cells: dict = field(default_factory=lambda: {"Q": 42})  # the log's Qwen errors
    judges: tuple = (
        JudgeProfile(
            "gpt-5.1",
            "gpt-5.1",
            position_bias=0.4,
            verbosity=1.0,
            tie_prob=0.12,
            discrimination=2.5,
            input_usd_per_mtok=1.25,
            output_usd_per_mtok=10.0,
        ),
        JudgeProfile(
            "claude-sonnet-4.6",
            "claude-sonnet-4-6",
            position_bias=0.0,
            verbosity=0.1,
            tie_prob=0.15,
            discrimination=2.0,
            input_usd_per_mtok=3.0,
            output_usd_per_mtok=15.0,
            category_discrimination={"한": 0.25},
        ),
    )
    # The judges and input variants that also judge every model-vs-model pair (round-robin).
    round_robin_judges: tuple = ("gpt-5.1",)
    round_robin_variants: tuple = ("text",)
    n_human_annotators: int = 3
    n_human_pairs: int = 40
    human_discrimination: float = 2.0
    human_tie_prob: float = 0.12


@dataclass(frozen=True)
class JudgeSimulationSummary:
    n_dialogues: int
    n_candidate_rows: int
    n_errored_cells: int
    n_verdict_rows: int
    judges: tuple[str, ...]
    parameters: JudgeDemoParameters
    # The latent truth, never landed: quality per (sample_id, candidate_id, variant) and axis, and
    # the response length in characters. Tests recover the planted biases against it.
    latent: pd.DataFrame = field(repr=False, default=None)

    def __str__(self) -> str:
        return (
            f"SIMULATED judge study: {self.n_dialogues} dialogues, {self.n_candidate_rows} candidate rows "
            f"({self.n_errored_cells} errored), {self.n_verdict_rows} verdict rows "
            f"(judges {', '.join(self.judges)} + human subset)"
        )


# --- Korean text ----------------------------------------------------------------------------------

_SITUATIONS = {
    "기쁨": [
        ("{name}가 {thing}에 합격했다는 소식을 전했다.", "나 {thing} 붙었어! 진짜 믿기지가 않아.", "{thing}"),
        (
            "{name}가 오래 준비한 {thing}을 무사히 끝냈다.",
            "드디어 {thing} 끝냈어. 몇 달 동안 준비한 거라 너무 뿌듯해.",
            "{thing}",
        ),
    ],
    "슬픔": [
        (
            "{name}가 오래 키운 반려견을 어제 떠나보냈다.",
            "우리 강아지가 어제 무지개다리를 건넜어. 아직 실감이 안 나.",
            "강아지",
        ),
        ("{name}가 {thing}에서 떨어졌다고 말했다.", "{thing} 결과 나왔는데 또 떨어졌어.", "{thing}"),
    ],
    "분노": [
        (
            "{name}가 동료가 자기 성과를 가로챘다고 털어놓았다.",
            "내가 한 {thing}을 팀장님 앞에서 자기가 했다고 하더라.",
            "{thing}",
        ),
        ("{name}가 택배가 또 분실됐다고 화를 냈다.", "세 번째야. 이번엔 {thing}까지 잃어버렸대.", "{thing}"),
    ],
    "불안": [
        (
            "{name}가 다음 주 {thing}을 앞두고 잠을 못 잔다.",
            "다음 주가 {thing}인데 자꾸 망칠 것 같아서 잠이 안 와.",
            "{thing}",
        ),
        ("{name}가 건강검진 결과를 기다리고 있다.", "검사 결과가 내일 나오는데 계속 나쁜 생각만 들어.", "검사 결과"),
    ],
    "당황": [
        (
            "{name}가 회의 중에 {thing}을 잘못 발표했다.",
            "회의에서 {thing} 숫자를 완전히 틀리게 말해 버렸어.",
            "{thing}",
        ),
        ("{name}가 엘리베이터에서 넘어졌다.", "사람 많은 엘리베이터에서 넘어졌어. 얼굴이 화끈거려.", "엘리베이터"),
    ],
    "상처": [
        ("{name}가 친한 친구의 말에 상처를 받았다.", "{thing} 얘기하다가 친구가 나보고 너무 예민하대.", "{thing}"),
        ("{name}가 가족 모임에서 비교를 당했다.", "명절마다 사촌이랑 {thing} 비교당하는 거 너무 지쳐.", "{thing}"),
    ],
    "그리움": [
        ("{name}가 돌아가신 할머니 생각이 난다고 했다.", "할머니가 해 주시던 {thing}이 너무 먹고 싶다.", "{thing}"),
        ("{name}가 이사 간 오랜 친구를 그리워한다.", "{thing} 같이 하던 친구가 이사 가고 나서 많이 허전해.", "{thing}"),
    ],
    "한": [
        (
            "{name}가 형편 때문에 {thing}을 포기했던 일을 이야기했다.",
            "그때 돈만 있었으면 {thing} 계속했을 텐데, 아직도 가슴에 맺혀.",
            "{thing}",
        ),
        ("{name}가 부모님께 효도를 못 했다고 자책했다.", "살아 계실 때 {thing} 한 번 못 해 드린 게 한이야.", "{thing}"),
    ],
}
_NAMES = ("친구", "동생", "언니", "형", "직장 동료", "룸메이트", "사촌")
_THINGS = (
    "자격증 시험",
    "대학원",
    "프로젝트",
    "발표",
    "면접",
    "공모전",
    "운전면허 시험",
    "보고서",
    "여행",
    "피아노",
    "된장찌개",
    "김치전",
    "미술",
    "축구",
)
_GOOD_EMPATHY = (
    "에휴… 얼마나 마음이 무거웠을까.",
    "그런 일 겪으면 속상한 게 당연하지.",
    "그 마음 충분히 이해돼.",
    "정 많이 들었을 텐데 많이 허전하겠다.",
    "아이고, 그동안 혼자 얼마나 애태웠어.",
)
_GOOD_JOY = (
    "와, 진짜 축하해! 그동안 고생한 게 다 보상받는 느낌이겠다.",
    "대박, 너무 잘됐다! 나까지 신난다.",
    "우와, 진짜 멋지다. 얼마나 뿌듯할까!",
)
_BAD_EMPATHY = (
    "힘내세요.",
    "그렇군요.",
    "당신의 상황에 대해 유감을 표합니다.",
    "그것은 어려운 상황입니다.",
    "시간이 약이에요.",
)
_GOOD_CONTEXT = (
    "{key} 얘기 들으니까 나도 마음이 쓰인다.",
    "{key} 때문에 요즘 정말 신경 많이 썼겠다.",
    "{key} 준비하면서 애쓴 거 내가 다 알지.",
)
_BAD_CONTEXT = ("다들 그런 일 한 번씩은 겪어요.", "다른 얘기 하자면, 요즘 날씨 좋더라.", "그런 건 금방 잊혀요.")
_FILLER = (
    "천천히 생각해도 괜찮아.",
    "오늘은 맛있는 거라도 먹으면서 좀 쉬어.",
    "나중에 더 얘기하고 싶으면 언제든 연락해.",
    "내가 옆에서 계속 응원할게.",
    "너무 혼자 끌어안고 있지 마.",
    "지금은 그냥 네 마음 돌보는 게 제일 중요해.",
)


def _response(rng: np.random.Generator, quality: np.ndarray, key: str, target_len: int, category: str) -> str:
    good_e = quality[0] > rng.normal(-0.6, 0.5)
    good_c = quality[2] > rng.normal(-0.6, 0.5)
    good = _GOOD_JOY if category == "기쁨" else _GOOD_EMPATHY
    parts = [
        rng.choice(good if good_e else _BAD_EMPATHY),
        rng.choice(_GOOD_CONTEXT if good_c else _BAD_CONTEXT).format(key=key),
    ]
    text = " ".join(parts)
    fillers = list(rng.permutation(_FILLER))
    while len(text) < target_len and fillers:
        text += " " + fillers.pop()
    return text


def _dialogues(rng: np.random.Generator, n: int) -> pd.DataFrame:
    rows = []
    for k in range(n):
        category = CATEGORIES[k % len(CATEGORIES)]
        situation, opener, key = _SITUATIONS[category][(k // len(CATEGORIES)) % len(_SITUATIONS[category])]
        thing, name = str(rng.choice(_THINGS)), str(rng.choice(_NAMES))
        turns = [
            {"speaker": "A", "text": opener.format(thing=thing)},
            {"speaker": "B", "text": "정말? 무슨 일이 있었는지 더 얘기해 줘."},
            {"speaker": "A", "text": "응, 생각할수록 마음이 복잡해."},
        ]
        rows.append(
            {
                "sample_id": f"{category}-{k // len(CATEGORIES) + 1:03d}",
                "category": category,
                "situation": situation.format(name=name, thing=thing),
                "turns": json.dumps(turns, ensure_ascii=False),
                "next_speaker": "B",
                "source": "SIMULATED (rater1001 judge demo)",
                "_key": key.format(thing=thing),
            }
        )
    return pd.DataFrame(rows)


def _reason(verdicts: dict[str, str], response_1: str, response_2: str) -> str:
    """The judge's reason, one sentence per axis, naming what it saw in the responses: a formulaic
    consolation, translationese or an off-context remark in the response it did not choose, else a
    strength of the one it chose, or that the two are alike (a tie). Deterministic: no draw."""
    sentences = []
    for axis, label, flaws, flaw_text, strength in (
        ("empathy", "공감", _BAD_EMPATHY, "같은 형식적 위로에 그친다", "화자의 감정을 더 구체적으로 짚어 공명한다"),
        (
            "naturalness",
            "자연스러움",
            ("당신의", "그것은", "유감을"),
            "같은 번역체 표현이 어색하다",
            "구어체와 어미가 더 자연스럽다",
        ),
        ("coherence", "맥락", _BAD_CONTEXT, "같은 일반론으로 앞 발화의 흐름을 놓친다", "앞 발화의 맥락을 더 잘 잇는다"),
    ):
        v = verdicts[axis]
        if v not in ("1", "2"):
            sentences.append(f"{label} 면에서는 두 응답이 비슷하다.")
            continue
        loser_n, loser = ("2", response_2) if v == "1" else ("1", response_1)
        flaw = next((f for f in flaws if f in loser), None)
        sentences.append(f"응답 {loser_n}은 '{flaw}' {flaw_text}." if flaw else f"응답 {v}이 {strength}.")
    return " ".join(sentences)


def _raw_answer(rng: np.random.Generator, verdicts: dict[str, str], reason: str) -> str:
    """A judge answer in the log's format, with the formatting noise real judges produce."""
    labels = {
        "empathy": "1축 (공감 반응)",
        "naturalness": "2축 (한국어 자연)",
        "coherence": "3축 (맥락 일관)",
        "overall": "종합",
    }
    style = rng.integers(4)
    lines = []
    for axis, label in labels.items():
        v = verdicts[axis]
        if style == 1:
            v = {"1": "응답 1", "2": "응답 2", "tie": "무승부"}[v]
            lines.append(f"**{label}**： {v}")
        elif style == 2:
            v = {"1": "1번", "2": "2번", "tie": "동점"}[v]
            lines.append(f"{label} :  {v}")
        else:
            lines.append(f"{label}: {v}")
    lines.append(f"이유: {reason}")
    return "\n".join(lines)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def simulate_judge_study(
    paths: ProjectPaths, seed: int = 20251129, params: JudgeDemoParameters | None = None
) -> JudgeSimulationSummary:
    p = params or JudgeDemoParameters()
    rng = np.random.default_rng([seed, 6])
    catalog = load_candidates(paths.seeds)
    parser = VerdictParser(load_axes(paths.seeds))
    prompt_version = template_id()

    dialogues = _dialogues(rng, p.n_samples)
    key_of = dict(zip(dialogues["sample_id"], dialogues["_key"]))
    category_of = dict(zip(dialogues["sample_id"], dialogues["category"]))

    # Candidate responses with a latent per-axis quality (kept here, never landed).
    quality: dict[tuple[str, str, str], np.ndarray] = {}
    lengths: dict[tuple[str, str, str], int] = {}
    rows = []
    errored = {
        c: set(map(tuple, rng.permutation([(s, v) for s in dialogues["sample_id"] for v in VARIANTS])[:n]))
        for c, n in p.errored_cells.items()
    }
    for sample_id in dialogues["sample_id"]:
        for cid in catalog:
            variants = ("text",) if catalog[cid].variant_invariant else VARIANTS
            for variant in variants:
                shared = rng.normal(0, p.response_sd * np.sqrt(0.6))
                q = (
                    np.asarray(p.quality[cid], float)
                    + p.variant_effect.get(variant, 0.0) * (cid != "P")
                    + shared
                    + rng.normal(0, p.response_sd * np.sqrt(0.4), 3)
                )
                target = max(12, int(rng.normal(p.mean_length[cid], 0.4 * p.mean_length[cid])))
                if (sample_id, variant) in errored.get(cid, set()):
                    rows.append(
                        {
                            "sample_id": sample_id,
                            "candidate_id": cid,
                            "variant": variant,
                            "response_text": None,
                            "status": "error",
                            "error": "SIMULATED: generation failed (CUDA OOM)",
                            "model_id": catalog[cid].display_name,
                        }
                    )
                    continue
                text = _response(rng, q, key_of[sample_id], target, category_of[sample_id])
                rows.append(
                    {
                        "sample_id": sample_id,
                        "candidate_id": cid,
                        "variant": variant,
                        "response_text": text,
                        "status": "ok",
                        "error": None,
                        "model_id": catalog[cid].display_name,
                    }
                )
                quality[(sample_id, cid, variant)] = q
                lengths[(sample_id, cid, variant)] = len(text)
    candidates = pd.DataFrame(rows)

    def q_of(sample_id, cid, variant):
        v = "text" if catalog[cid].variant_invariant else variant
        return quality[(sample_id, cid, v)], lengths[(sample_id, cid, v)]

    plan = build_plan(candidates, catalog, plan="anchor")
    dlg = dialogues.set_index("sample_id")

    def judge_call(rng: np.random.Generator, judge: JudgeProfile, call) -> dict:
        first, second = (
            (call.candidate_a, call.candidate_b) if call.order == "AB" else (call.candidate_b, call.candidate_a)
        )
        q1, l1 = q_of(call.sample_id, first, call.variant)
        q2, l2 = q_of(call.sample_id, second, call.variant)
        d = np.append(q1 - q2, (q1 - q2).mean())
        discrimination = judge.discrimination * judge.category_discrimination.get(category_of[call.sample_id], 1.0)
        u = discrimination * d + judge.position_bias + judge.verbosity * (l1 - l2) / 100.0
        tie = rng.random(4) < judge.tie_prob
        first_wins = rng.random(4) < _sigmoid(u)
        v = {axis: ("tie" if t else ("1" if w else "2")) for axis, t, w in zip((*AXES, "overall"), tie, first_wins)}
        raw = _raw_answer(rng, v, _reason(v, call.response_1, call.response_2))
        if rng.random() < judge.parse_failure_prob:
            raw = "죄송합니다. 두 응답 모두 적절하여 판단하기 어렵습니다."
        parsed = parser.parse(raw)
        d_row = dlg.loc[call.sample_id]
        prompt = render(
            next_speaker=d_row["next_speaker"],
            situation=d_row["situation"],
            turns=[(t["speaker"], t["text"]) for t in json.loads(d_row["turns"])],
            response_1=call.response_1,
            response_2=call.response_2,
        )
        in_tok, out_tok = int(len(prompt) * 1.1), int(rng.integers(120, 260))
        return {
            "judge_id": judge.judge_id,
            "judge_kind": "llm",
            "judge_model": judge.judge_model,
            "sample_id": call.sample_id,
            "variant": call.variant,
            "candidate_a": call.candidate_a,
            "candidate_b": call.candidate_b,
            "order": call.order,
            **{f"verdict_{a}": parsed.verdicts[a] for a in (*AXES, "overall")},
            "reason": parsed.reason,
            "raw_text": raw,
            "parse_status": parsed.status,
            "prompt_version": prompt_version,
            "input_tokens": in_tok,
            "output_tokens": out_tok,
            "cost_usd": (in_tok * judge.input_usd_per_mtok + out_tok * judge.output_usd_per_mtok) / 1e6,
            "latency_ms": float(rng.gamma(4.0, 900.0)),
        }

    verdict_rows = [judge_call(rng, judge, call) for judge in p.judges for call in plan.calls]

    # Human-labelled subset: n_human_pairs anchor pairs of the text variant, each annotator sees one
    # order (drawn per annotator and pair) and labels every axis.
    text_pairs = sorted(
        {(c.sample_id, c.variant, c.candidate_a, c.candidate_b) for c in plan.calls if c.variant == "text"}
    )
    chosen = [
        text_pairs[i] for i in rng.choice(len(text_pairs), size=min(p.n_human_pairs, len(text_pairs)), replace=False)
    ]
    for h in range(p.n_human_annotators):
        for sample_id, variant, a, b in chosen:
            order = "AB" if rng.random() < 0.5 else "BA"
            first, second = (a, b) if order == "AB" else (b, a)
            q1, _ = q_of(sample_id, first, variant)
            q2, _ = q_of(sample_id, second, variant)
            d = np.append(q1 - q2, (q1 - q2).mean())
            tie = rng.random(4) < p.human_tie_prob
            first_wins = rng.random(4) < _sigmoid(p.human_discrimination * d)
            v = {axis: ("tie" if t else ("1" if w else "2")) for axis, t, w in zip((*AXES, "overall"), tie, first_wins)}
            verdict_rows.append(
                {
                    "judge_id": f"human-{h + 1:02d}",
                    "judge_kind": "human",
                    "judge_model": None,
                    "sample_id": sample_id,
                    "variant": variant,
                    "candidate_a": a,
                    "candidate_b": b,
                    "order": order,
                    **{f"verdict_{ax}": v[ax] for ax in (*AXES, "overall")},
                    "reason": None,
                    "raw_text": None,
                    "parse_status": "ok",
                    "prompt_version": None,
                    "input_tokens": None,
                    "output_tokens": None,
                    "cost_usd": None,
                    "latency_ms": None,
                }
            )
    # The log's future work, a round-robin: the model-vs-model pairs of the round-robin plan for the
    # named judges and variants (the anchor pairs are already judged above). Drawn from a stream of
    # their own, so the anchor study above is the same with or without them.
    rr_rng = np.random.default_rng([seed, 7])
    round_robin = build_plan(candidates, catalog, plan="round-robin", variants=list(p.round_robin_variants))
    model_pairs = [
        c for c in round_robin.calls if not (catalog[c.candidate_a].is_anchor or catalog[c.candidate_b].is_anchor)
    ]
    verdict_rows += [
        judge_call(rr_rng, judge, call)
        for judge in p.judges
        if judge.judge_id in p.round_robin_judges
        for call in model_pairs
    ]
    verdicts = pd.DataFrame(verdict_rows)

    for spec, frame in (
        (DIALOGUES, dialogues.drop(columns="_key")),
        (CANDIDATES, candidates),
        (JUDGE_VERDICTS, verdicts),
    ):
        write_parquet_atomic(to_arrow(frame, spec), paths.raw_table(spec.name))
        record_landing(
            paths, ManifestEntry(spec.name, f"rater1001 judge demo (seed {seed})", None, len(frame), 0, True)
        )
    latent = pd.DataFrame(
        [
            {"sample_id": s_, "candidate_id": c_, "variant": v_, "chars": lengths[(s_, c_, v_)], **dict(zip(AXES, q))}
            for (s_, c_, v_), q in quality.items()
        ]
    )
    return JudgeSimulationSummary(
        len(dialogues),
        len(candidates),
        int((candidates["status"] != "ok").sum()),
        len(verdicts),
        tuple(j.judge_id for j in p.judges),
        p,
        latent,
    )
