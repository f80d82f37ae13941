"""`infer` sends only files inside the images folder that are images a provider accepts: absolute
paths, `..`, and symbolic links out of the folder are refused per stimulus, never opened or sent,
as are files that are not decodable images or break a provider's limits; the other stimuli run."""

from __future__ import annotations

import json
import os
import re

import pandas as pd
import pytest
from fakes.models import openai_parts, openai_server
from fakes.project import make_infer_project, tiny_png, truth
from PIL import Image
from rater1001.contract import STIMULI
from rater1001.landing import to_arrow, write_parquet_atomic
from rater1001.runs.infer.images import MB, ImageFile, limit_problem
from rater1001.runs.infer.plan import PlanError
from rater1001.runs.infer.run import InferOptions, dry_run, run_infer

KEY = "sk-test-images-0123456789abcdef"


def answer(image_id, step, prompt):
    return json.dumps({"emotion": truth(image_id), "valence": 5, "arousal": 5})


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    return make_infer_project(tmp_path / "study", n_images=3)


def set_file_path(paths, image_id, value):
    from pyarrow import parquet as pq

    df = pq.read_table(paths.raw_table("stimuli")).to_pandas()
    df.loc[df["image_id"] == image_id, "file_path"] = value
    write_parquet_atomic(to_arrow(pd.DataFrame(df), STIMULI), paths.raw_table("stimuli"))


def refused(paths, images, match, bad="img0001"):
    """Run: the bad stimulus is refused with a message matching `match`, never sent, the others run."""
    with openai_server(answer) as srv:
        result = run_infer(
            paths,
            InferOptions(["gpt-4o-mini"], images, base_url=srv.url + "/v1", progress=False, strategy="json-single"),
        )
    sent = [openai_parts(r.body)[1] for r in srv.requests]  # the image id inside the bytes sent
    assert len(sent) == 2 and bad not in sent and "stolen" not in sent
    assert b"hunter2" not in b"".join(json.dumps(r.body).encode() for r in srv.requests)
    assert [r.image_id for r in result.refused] == [bad] and re.search(match, result.refused[0].message)
    assert result.summary.loc[0, "refused"] == 1
    assert sorted(result.rows["image_id"]) == sorted({"img0000", "img0001", "img0002"} - {bad})


def test_an_absolute_path_is_refused(proj):
    paths, images = proj
    set_file_path(paths, "img0001", "/etc/hostname")
    refused(paths, images, r"image_id 'img0001': column file_path '/etc/hostname': is an absolute path")


def test_a_path_up_and_out_is_refused(proj, tmp_path):
    paths, images = proj
    (tmp_path / "secret_outside.txt").write_text("the key is hunter2")
    set_file_path(paths, "img0002", "../../secret_outside.txt")
    refused(
        paths, images, r"image_id 'img0002': column file_path '../../secret_outside.txt': contains '..'", bad="img0002"
    )


def test_a_symlink_out_of_the_folder_is_refused_and_one_inside_is_followed(proj, tmp_path):
    paths, images = proj
    outside = tmp_path / "outside.png"
    outside.write_bytes(tiny_png("stolen"))  # a valid image: the place, not the content, is refused
    (images / "link_out.png").symlink_to(outside)
    (images / "sub").mkdir()
    (images / "sub" / "link_in.png").symlink_to(images / "img0000.png")
    set_file_path(paths, "img0001", "sub/link_in.png")
    table = dry_run(paths, InferOptions(["gpt-4o-mini"], images))
    assert table.loc[0, "calls_todo"] == 9 and table.attrs["refused"] == []
    set_file_path(paths, "img0002", "link_out.png")
    refused(
        paths,
        images,
        rf"image_id 'img0002': column file_path 'link_out.png': leads to {outside}, "
        r"outside the images folder",
        bad="img0002",
    )


@pytest.mark.parametrize(
    "content, match",
    [
        (b"the key is hunter2\n", r"is not an image that can be read"),
        (tiny_png("img0001")[:60], r"is not a decodable image"),
        (b"", r"is not an image that can be read"),
    ],
)
def test_a_file_that_is_not_a_decodable_image_is_refused(proj, content, match):
    paths, images = proj
    (images / "img0001.png").write_bytes(content)
    refused(paths, images, r"image_id 'img0001': column file_path 'img0001.png': .*img0001.png " + match)


def test_a_format_or_size_the_provider_does_not_accept_is_refused(proj):
    paths, images = proj
    Image.new("RGB", (4, 4)).save(images / "img0001.png", "BMP")  # named .png, is a BMP
    refused(paths, images, r"image_id 'img0001' \(img0001.png\) is BMP; backend openai accepts GIF, JPEG, PNG, WEBP")
    Image.new("1", (8000, 7000)).save(images / "img0001.png", "PNG")  # small file, 56 million pixels
    refused(paths, images, r"img0001.png .*has 8000x7000 pixels")
    big = ImageFile("x", images / "x.png", "0" * 64, "PNG", 10, 10, 21 * MB)
    assert limit_problem(big, "gemini") == "is 21.0 MB; backend gemini accepts up to 20 MB"
    assert limit_problem(big, "mlx") is None
    anim = ImageFile("x", images / "x.gif", "0" * 64, "GIF", 10, 10, 100, animated=True)
    assert "animated GIF" in limit_problem(anim, "openai") and limit_problem(anim, "mlx") is None


def test_the_mime_type_comes_from_the_content_not_the_name(proj):
    paths, images = proj
    (images / "img0001.png").write_bytes(_jpeg_with_id("img0001"))
    with openai_server(answer) as srv:
        run_infer(
            paths,
            InferOptions(
                ["gpt-4o-mini"], images, base_url=srv.url + "/v1", progress=False, strategy="json-single", limit=2
            ),
        )
    mimes = {}
    for r in srv.requests:
        _, image_id, image = openai_parts(r.body)
        mimes[image_id] = image["url"].split(";")[0]
    assert mimes == {"img0000": "data:image/png", "img0001": "data:image/jpeg"}


def _jpeg_with_id(image_id: str) -> bytes:
    import io

    buf = io.BytesIO()
    Image.new("RGB", (4, 4)).save(buf, "JPEG", comment=f"IMG:{image_id} ".encode())
    return buf.getvalue()


def test_running_as_a_different_folder_name_still_resolves(proj, tmp_path):
    """The images folder itself may be reached through a link (resolved once, both sides)."""
    paths, images = proj
    alias = tmp_path / "alias"
    os.symlink(images, alias)
    assert dry_run(paths, InferOptions(["gpt-4o-mini"], alias)).loc[0, "calls_todo"] == 9


def test_when_nothing_can_be_sent_the_plan_is_refused_and_the_cli_says_why(proj, capsys):
    from rater1001 import cli

    paths, images = proj
    (images / "img0000.png").write_text("not an image")
    with openai_server(answer) as srv:
        argv = [
            "--home",
            str(paths.root),
            "infer",
            "gpt-4o-mini",
            "--images",
            str(images),
            "--base-url",
            srv.url + "/v1",
            "--no-progress",
            "--strategy",
            "json-single",
        ]
        rc = cli.main(argv)
        err = capsys.readouterr().err
        assert rc == 3 and "1 stimulus/condition pair(s) refused" in err and "img0000.png" in err
        for name in ("img0001.png", "img0002.png"):
            (images / name).unlink()
        rc = cli.main(argv)
        err = capsys.readouterr().err
        assert rc == 2 and "no stimulus can be sent" in err and "img0001.png" in err
        with pytest.raises(PlanError, match="no stimulus can be sent"):
            dry_run(paths, InferOptions(["gpt-4o-mini"], images))
    assert len(srv.requests) == 2  # the first run's two good stimuli


@pytest.mark.parametrize(
    "value, match",
    [
        ("a\x00b.png", r"cannot be resolved \(.*null"),
        ("loop.png", r"cannot be resolved \(.*loop"),
        ("sub", r"no file"),
        ("", r" is empty"),
    ],
)
def test_unresolvable_paths_are_refused_with_the_stimulus_named(proj, value, match):
    paths, images = proj
    (images / "loop.png").symlink_to(images / "loop.png")
    (images / "sub").mkdir()
    set_file_path(paths, "img0001", value)
    refused(paths, images, r"image_id 'img0001': column file_path.*" + match)
