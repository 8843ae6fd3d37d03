"""The campaign's extra mutants (issue 6): patches run with the named mutants, in a copy, and in the report."""

from __future__ import annotations

import pytest
from campaign_helpers import MUTANTS, run_named_mutants, settings_for

from reports.campaign.journal import Journal
from reports.campaign.records import BASELINE
from reports.render.mutation_testing_elements import mte_json
from reports.render.report_model import build

pytestmark = pytest.mark.harness


# ----------------------------------------------------------------------------- extra mutants (patches)


EXTRA_KILLED = """Adds one to every sum.
--- a/calc.py
+++ b/calc.py
@@ -11,2 +11,2 @@
     off = Defect.OFF_BY_ONE in active or (Defect.OFF_FOR_LARGE in active and a >= 5)
-    return a + b + (1 if off else 0)
+    return a + b + 1
"""
EXTRA_SURVIVES = """Renames a local variable.
--- a/calc.py
+++ b/calc.py
@@ -10,3 +10,3 @@
         time.sleep(120)
-    off = Defect.OFF_BY_ONE in active or (Defect.OFF_FOR_LARGE in active and a >= 5)
-    return a + b + (1 if off else 0)
+    bump = Defect.OFF_BY_ONE in active or (Defect.OFF_FOR_LARGE in active and a >= 5)
+    return a + b + (1 if bump else 0)
"""


def test_extra_mutants_are_patches_run_with_the_named_mutants(campaign, tmp_path):
    from reports.campaign.extra_mutants import extra_mutants

    settings, fp, records = campaign
    folder = tmp_path / "patches"
    folder.mkdir()
    (folder / "sum-plus-one.patch").write_text(EXTRA_KILLED)
    (folder / "rename.patch").write_text(EXTRA_SURVIVES)
    (folder / "stale.patch").write_text(EXTRA_KILLED.replace("return a + b + (1", "return a * b + (1"))
    extras = extra_mutants(folder)
    assert [m.id for m in extras] == ["extra:rename", "extra:stale", "extra:sum-plus-one"]
    run = settings_for(settings.root, out=tmp_path / "out")
    Journal(run.journal_dir, "all").write(records[BASELINE])
    before = (settings.root / "calc.py").read_text()
    done = run_named_mutants(run, extras, fp=fp, patches={m.id: folder / f"{m.id[6:]}.patch" for m in extras})
    assert (settings.root / "calc.py").read_text() == before  # patched in a copy only
    killed = done["extra:sum-plus-one"]
    assert killed.status == "killed" and "tests/test_calc.py::test_add[sound]" in killed.killed_by
    assert (killed.file, killed.line) == ("calc.py", 11)
    assert done["extra:rename"].status == "survived"
    assert done["extra:stale"].status == "error" and "does not apply" in done["extra:stale"].reason
    report = build({**records, **done}, fp, MUTANTS + extras, equivalents={})
    row = next(r for r in report.named if r.id == "extra:sum-plus-one")
    assert row.wording == "Adds one to every sum." and row.status == "killed"
    assert any(
        "extra mutants (patches): 1/3 killed" in line
        for line in __import__("reports.render.summary").render.summary.summary_lines(report)
    )
    doc = mte_json(report, settings.root)
    assert {m["id"]: m["mutatorName"] for m in doc["files"]["calc.py"]["mutants"]}["extra:sum-plus-one"] == "Patch"
