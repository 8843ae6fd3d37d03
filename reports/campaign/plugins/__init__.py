"""The pytest plugins loaded inside the campaign's child sessions (``-p reports.campaign.plugins.<name>``):
``mutant_plugin`` switches a named mutant on and records outcomes, ``warm_session`` runs mutants from one
collected session, ``witness_plugin`` runs the red-first witness search. They import nothing heavy at load."""
