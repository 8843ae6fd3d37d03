"""State out of the package (docs/architecture.md, "State"): what the tool writes at run time goes to the state
folder, the reviewed data is committed in ``mutation/``, and both are found from the project's root."""

from __future__ import annotations

from pathlib import Path

import pytest

from invariants.plugin import order_file
from reports.campaign import settings as campaign_settings
from reports.campaign.hints import Hints, read, write

pytestmark = pytest.mark.harness

ROOT = Path(__file__).resolve().parents[1]


def test_the_package_folder_holds_code_and_the_shipped_schema_only():
    data = [
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "reports").rglob("*")
        if p.is_file() and p.suffix in (".json", ".toml", ".jsonl") and "out" not in p.relative_to(ROOT).parts
    ]
    assert data == ["reports/render/schema/mutation-testing-report-schema.json"]


def test_the_reviewed_data_is_committed_in_mutation():
    for name in ("equivalent_mutants.toml", "test-order.json", "hints.json"):
        assert (campaign_settings.COMMITTED / name).is_file(), name


def test_a_learnt_file_is_read_from_the_state_folder_before_the_committed_copy(tmp_path, monkeypatch):
    committed, state = tmp_path / "mutation", tmp_path / ".cmharness"
    committed.mkdir()
    monkeypatch.setattr(campaign_settings, "COMMITTED", committed)
    write(Hints(witnesses={"t": "reviewed"}), committed / "hints.json")
    assert campaign_settings.learnt("hints.json", state) == committed / "hints.json"
    assert read(campaign_settings.learnt("hints.json", state)).witnesses == {"t": "reviewed"}
    state.mkdir()
    write(Hints(witnesses={"t": "fresh"}), state / "hints.json")
    assert read(campaign_settings.learnt("hints.json", state)).witnesses == {"t": "fresh"}


def test_the_suite_order_is_found_from_the_rootdir_not_from_a_module(tmp_path):
    assert order_file(tmp_path) is None
    (tmp_path / "mutation").mkdir()
    (tmp_path / "mutation" / "test-order.json").write_text('{"tests": []}')
    assert order_file(tmp_path) == tmp_path / "mutation" / "test-order.json"
    (tmp_path / ".cmharness").mkdir()
    (tmp_path / ".cmharness" / "test-order.json").write_text('{"tests": []}')
    assert order_file(tmp_path) == tmp_path / ".cmharness" / "test-order.json"
