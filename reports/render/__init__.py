"""The red-first report and the comparison, rendered: the report's model built from the journal
(``report_model``), its figures (``summary``), HTML, Markdown, mutation-testing-elements JSON (``outputs``
writes them all) and the outputs of ``cmharness compare`` (``compare``). Rendering reads records; it runs
nothing."""
