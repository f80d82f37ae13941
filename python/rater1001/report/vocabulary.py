"""The study's own words in the report. The report's fixed text (titles, captions, questions, the
marts' descriptions) is written in the warehouse's neutral slot names (`category`, `audit_1`,
`audit_2`; docs/study_shape.md, "Factor names"). Every text a person reads is given in the study's
names ("Audit_1 x audit_2 ANOVA per category" reads "Race x gender ANOVA per emotion" in the demo,
"Genre x source ANOVA per topic" over a genre audit), and the blocks about a dimension the study did
not declare (valence, arousal, naturalness) are left out rather than shown empty."""

from __future__ import annotations

import re
from dataclasses import replace

from ..study import Study
from .applicability import slot_headers

SLOTS = ("category", "audit_1", "audit_2")
PAPER_DIMENSIONS = ("valence", "arousal", "naturalness")
# what a slot the study leaves empty is called in a sentence
UNFILLED = {"category": "category", "audit_1": "first audit factor", "audit_2": "second audit factor"}


def slot_words(study: Study) -> dict[str, str]:
    """Slot -> the word the study uses for it (a slot the study leaves empty: what it is)."""
    filled = study.factor_slots
    words = {slot: filled.get(slot, UNFILLED[slot]).replace("_", " ") for slot in SLOTS}
    return {slot: word for slot, word in words.items() if word != slot}


def _plural(word: str) -> str:
    return word[:-1] + "ies" if word.endswith("y") else word + "s"


def translator(study: Study):
    """text -> the text in the study's words. Whole words only: an identifier
    (classification_by_category, true_category) stays as it is, and so does a judge study's
    "dialogue category" (the dialogues' own categories, not a stimulus factor)."""
    words = slot_words(study)
    forms = {slot: word for slot, word in words.items()}
    if "category" in words:
        forms["categories"] = _plural(words["category"])
    filled = study.factor_slots
    if "audit_1" in filled and "audit_2" in filled:  # the pair's slice type, as the audit marts spell it
        forms["audit_1_audit_2"] = f"{filled['audit_1']}_{filled['audit_2']}"
    if not forms:
        return lambda text: text
    alternatives = "|".join(sorted(forms, key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w])(?<!dialogue )({alternatives})(?![\w])", re.IGNORECASE)

    def one(m: re.Match) -> str:
        word = forms[m.group(1).lower()]
        return word[0].upper() + word[1:] if m.group(1)[0].isupper() else word

    def translate(text):
        return pattern.sub(one, text) if isinstance(text, str) else text

    return translate


def translate_html(html: str, study: Study) -> str:
    """The report's HTML with every text node (never a script, style, table body, tag or
    attribute) in the study's words."""
    translate = translator(study)
    if not slot_words(study):
        return html
    # scripts, styles and tables' bodies (data: a cell holds the study's own values) stay as they
    # are, and so do the judge study's blocks (its `category` is the dialogues', not a factor)
    judge = r'<section class="block\b[^>]*data-tables="(?:stg_)?judge_[^"]*">.*?</section>'
    kept = rf"(<script\b.*?</script>|<style\b.*?</style>|<tbody\b.*?</tbody>|{judge})"
    parts = re.split(kept, html, flags=re.S | re.I)
    out = []
    for part in parts:
        if re.match(r"<(script|style|tbody)\b|<section class=\"block\b", part, re.I):
            out.append(part)
        else:
            out.append(re.sub(r">([^<]+)<", lambda m: ">" + translate(m.group(1)) + "<", part))
    return "".join(out)


def translate_docs(docs: dict, study: Study) -> dict:
    """The models' yml descriptions (a block's description, its columns' header tooltips) in the
    study's words; the judge study's keep theirs (their `category` is the dialogues')."""
    translate = translator(study)

    def own(name: str, doc):
        if name.startswith(("judge_", "stg_judge_")):
            return doc
        columns = {c: translate(text) for c, text in doc.columns.items()}
        return replace(doc, description=translate(doc.description), columns=columns)

    return {name: own(name, doc) for name, doc in docs.items()}


def translate_spec(spec: dict, study: Study) -> dict:
    """A figure's Vega-Lite spec with what a person reads in the study's words: every title, and
    an encoding of a slot column (`category`, `true_category`, `audit_1`, ...) titled by the study's
    name for it. Field names and data stay as they are."""
    translate = translator(study)
    headers = slot_headers(study)

    def walk(node):
        if isinstance(node, list):
            return [walk(x) for x in node]
        if not isinstance(node, dict):
            return node
        out = {}
        for key, value in node.items():
            if key == "datasets":
                out[key] = value
            elif key in ("title", "text") and isinstance(value, (str, list)):
                out[key] = [translate(v) for v in value] if isinstance(value, list) else translate(value)
            else:
                out[key] = walk(value)
        field = out.get("field")
        if isinstance(field, str) and field in headers and "type" in out and "title" not in out:
            out["title"] = headers[field]
        return out

    return walk(spec)


def undeclared_dimensions(study: Study) -> set[str]:
    """The paper's dimensions this study does not rate: their blocks are left out."""
    return {d for d in PAPER_DIMENSIONS if d not in study.dimensions}


def about_undeclared(name: str, study: Study) -> bool:
    """Whether a mart's or block's name is about a paper dimension the study does not rate
    (naturalness_by_category in a study without naturalness)."""
    return any(re.search(rf"(?<![a-z]){d}(?![a-z])", name, re.IGNORECASE) for d in undeclared_dimensions(study))


def studys_sections(sections, study: Study):
    """The sections without the blocks (and sections) about a paper dimension the study does not
    rate, and without classification when it has no category: a study of fluency gets no empty
    valence tables."""
    gone = undeclared_dimensions(study)
    # a paper dimension's agreement section needs the models to rate it (its figures read z_<dim>)
    unrated = {d for d in PAPER_DIMENSIONS if d not in study.model_dimensions}
    if study.category is None:  # nothing to classify: no classification section at all
        unrated.add("classification")
    if not gone and not unrated:
        return tuple(sections)
    about = re.compile(rf"\b({'|'.join(gone)})\b", re.IGNORECASE) if gone else None
    out = []
    for s in sections:
        if s.key in gone | unrated:
            continue
        if about is None:
            out.append(s)
            continue
        items = tuple(
            i
            for i in s.items
            if not about.search(getattr(i, "title", "") or "")
            and not any(about_undeclared(t, study) for t in getattr(i, "reads", ()) or ())
        )
        if items:
            out.append(replace(s, items=items))
    return tuple(out)
