"""Z3 searches for the rounding edges of the estimator and the compile (issue 5): each returns an ``EdgeResult``,
witnesses or a proof that none exists in its range, kept in ``invariants/witnesses.json`` and replayed as stores.

One module per edge search (``division``, ``half_rounding``, ``epochs``, ``grace``, ``caps``, ``density``), over
the IEEE encoding (``ieee``), the solver helpers (``solver``), the result records (``results``) and compile checks
(``compile_checks``); ``searches`` names them all, ``witness_corpus`` reads and writes the corpus, ``scenarios``
turns its witnesses into compile cases, and ``command`` is ``cmharness edges``.
"""

from invariants.edges.caps import (
    CAP_MAX,
    MARKER_FIXED,
    PROSE_MAX,
    SEPARATOR_TOKENS,
    XML_HALF_CAP_MAX,
    XML_LENGTH_MAX,
    raw_cap_store,
    search_cap_units,
    xml_summaries,
)
from invariants.edges.command import add_edges_arguments, edge_table, edges_command
from invariants.edges.compile_checks import VARIANT_NAMES
from invariants.edges.density import (
    DENSITY_LENGTH_MAX,
    DENSITY_PROBE,
    DENSITY_THRESHOLD,
    density_string,
    search_density_threshold,
)
from invariants.edges.division import DIVISION_MAX, DIVISION_RATES, search_ieee_division
from invariants.edges.epochs import (
    DEFAULT_GRACE_PERCENT,
    EMPTY_REASONING_PRICE,
    MAIN_FALLBACK_SUMMARY_TEXT,
    SIGNATURE_MAX,
    SIGNATURE_RATE,
    THINKING_MAX,
    epoch_store,
    main_fallback_store,
    search_epoch_predicate,
)
from invariants.edges.grace import BUDGET_MAX, GRACE_PERCENTS, search_grace_limit
from invariants.edges.half_rounding import CALIBRATION_STEP, CALIBRATIONS, RAW_MAX, search_js_round_half
from invariants.edges.ieee import F64, SCALE_BITS
from invariants.edges.results import CorpusEntry, EdgeEncodingError, EdgeResult, EdgeStatus, Witness
from invariants.edges.scenarios import (
    NO_GRACE,
    SCENARIO_BUILDERS,
    Scenario,
    prose_with_tokens,
    witness_scenarios,
    xml_store,
)
from invariants.edges.searches import EDGES, SEARCHES, run_edges
from invariants.edges.witness_corpus import (
    CORPUS_PATH,
    CORPUS_VERSION,
    CorpusError,
    WitnessCorpus,
    corpus_json,
    format_corpus,
    load_corpus,
    write_corpus,
)

__all__ = [
    "BUDGET_MAX",
    "CALIBRATIONS",
    "CALIBRATION_STEP",
    "CAP_MAX",
    "CORPUS_PATH",
    "CORPUS_VERSION",
    "DEFAULT_GRACE_PERCENT",
    "DENSITY_LENGTH_MAX",
    "DENSITY_PROBE",
    "DENSITY_THRESHOLD",
    "DIVISION_MAX",
    "DIVISION_RATES",
    "EDGES",
    "EMPTY_REASONING_PRICE",
    "F64",
    "GRACE_PERCENTS",
    "MAIN_FALLBACK_SUMMARY_TEXT",
    "MARKER_FIXED",
    "NO_GRACE",
    "PROSE_MAX",
    "RAW_MAX",
    "SCALE_BITS",
    "SCENARIO_BUILDERS",
    "SEARCHES",
    "SEPARATOR_TOKENS",
    "SIGNATURE_MAX",
    "SIGNATURE_RATE",
    "THINKING_MAX",
    "VARIANT_NAMES",
    "XML_HALF_CAP_MAX",
    "XML_LENGTH_MAX",
    "CorpusEntry",
    "CorpusError",
    "EdgeEncodingError",
    "EdgeResult",
    "EdgeStatus",
    "Scenario",
    "Witness",
    "WitnessCorpus",
    "add_edges_arguments",
    "corpus_json",
    "density_string",
    "edge_table",
    "edges_command",
    "epoch_store",
    "format_corpus",
    "load_corpus",
    "main_fallback_store",
    "prose_with_tokens",
    "raw_cap_store",
    "run_edges",
    "search_cap_units",
    "search_density_threshold",
    "search_epoch_predicate",
    "search_grace_limit",
    "search_ieee_division",
    "search_js_round_half",
    "witness_scenarios",
    "write_corpus",
    "xml_store",
    "xml_summaries",
]
