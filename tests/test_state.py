"""State out of the package (docs/architecture.md, "State"): what the tool writes at run time goes to the state
folder, the reviewed data is committed in ``mutation/``, and both are found from the project's root."""

from __future__ import annotations

from pathlib import Path

import pytest

from invariants.plugin import STATE_ENV, order_file
from reports.campaign import settings as campaign_settings
from reports.campaign.hints import Hints, committed_digest, committed_hints, write

pytestmark = pytest.mark.harness

ROOT = Path(__file__).resolve().parents[1]


def test_the_package_folder_holds_code_and_the_shipped_data_only():
    data = [
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "reports").rglob("*")
        if p.is_file() and p.suffix in (".json", ".toml", ".jsonl") and "out" not in p.relative_to(ROOT).parts
    ]
    assert sorted(data) == [
        "reports/cli/typescript_locations.json",
        "reports/render/schema/mutation-testing-report-schema.json",
    ]


def test_the_reviewed_data_is_committed_in_mutation():
    for name in ("equivalent_mutants.toml", "test-order.json", "hints.json"):
        assert (campaign_settings.COMMITTED / name).is_file(), name


def test_only_the_committed_hints_order_a_run_the_state_folders_wait_to_be_adopted(tmp_path, monkeypatch):
    """A clone with a report of its own orders its mutants' tests as a fresh clone of the commit does: the order
    names each mutant's first killer, so the fresher hints a report wrote to the state folder do not count."""
    committed, state = tmp_path / "mutation", tmp_path / ".cmharness"
    committed.mkdir()
    state.mkdir()
    monkeypatch.setattr(campaign_settings, "COMMITTED", committed)
    assert committed_hints() == Hints() and committed_digest() == ""
    write(Hints(witnesses={"t": "reviewed"}), committed / "hints.json")
    write(Hints(witnesses={"t": "fresh"}), state / "hints.json")
    assert committed_hints().witnesses == {"t": "reviewed"}
    reviewed = committed_digest()
    write(Hints(witnesses={"t": "adopted"}), committed / "hints.json")
    assert committed_hints().witnesses == {"t": "adopted"} and committed_digest() not in ("", reviewed)


def test_the_suite_order_is_found_from_the_rootdir_not_from_a_module(tmp_path, monkeypatch):
    monkeypatch.delenv(STATE_ENV, raising=False)
    assert order_file(tmp_path) is None
    (tmp_path / "mutation").mkdir()
    (tmp_path / "mutation" / "test-order.json").write_text('{"tests": []}')
    assert order_file(tmp_path) == tmp_path / "mutation" / "test-order.json"
    (tmp_path / ".cmharness").mkdir()
    (tmp_path / ".cmharness" / "test-order.json").write_text('{"tests": []}')
    assert order_file(tmp_path) == tmp_path / ".cmharness" / "test-order.json"


def test_a_campaign_tells_its_pytest_sessions_where_its_state_folder_is(tmp_path, monkeypatch):
    """``--state-dir`` holds in the child sessions too: the suite's order is read from the campaign's state folder."""
    state = tmp_path / "elsewhere"
    settings = campaign_settings.Settings(root=tmp_path, state_dir=state)
    env = settings.env()
    assert campaign_settings.STATE_ENV == STATE_ENV and env[STATE_ENV] == str(state)
    assert env["PYTHONPYCACHEPREFIX"].startswith(str(state))  # bytecode goes there too, not into the project
    monkeypatch.setenv(STATE_ENV, env[STATE_ENV])
    (tmp_path / ".cmharness").mkdir()
    (tmp_path / ".cmharness" / "test-order.json").write_text('{"tests": []}')
    assert order_file(tmp_path) is None  # the project's own state folder is not the campaign's
    state.mkdir()
    (state / "test-order.json").write_text('{"tests": []}')
    assert order_file(tmp_path) == state / "test-order.json"
