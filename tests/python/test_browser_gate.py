"""The headless-browser test skips on a machine without Chromium, naming the package to install,
and fails instead when RATER1001_REQUIRE_BROWSER=1 (what CI sets)."""

from __future__ import annotations

import pytest
import report_browser


@pytest.fixture
def no_chromium(monkeypatch, tmp_path):
    monkeypatch.setattr(report_browser, "CHROMIUM", tmp_path / "no-such-chromium")


def test_absent_chromium_skips_naming_the_package(no_chromium, monkeypatch):
    monkeypatch.delenv(report_browser.REQUIRE_BROWSER, raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"install the Debian package `chromium`"):
        report_browser.require_chromium()


def test_absent_chromium_fails_when_ci_requires_the_browser(no_chromium, monkeypatch):
    monkeypatch.setenv(report_browser.REQUIRE_BROWSER, "1")
    with pytest.raises(pytest.fail.Exception, match=r"RATER1001_REQUIRE_BROWSER=1 but .*`chromium`"):
        report_browser.require_chromium()


def test_present_chromium_neither_skips_nor_fails(monkeypatch, tmp_path):
    browser = tmp_path / "chromium"
    browser.write_bytes(b"")
    monkeypatch.setattr(report_browser, "CHROMIUM", browser)
    monkeypatch.setenv(report_browser.REQUIRE_BROWSER, "1")
    assert report_browser.require_chromium() is None
