"""The optimized hierarchical compile and its variants (docs/model.md, Windows to Known defects)."""

from strategies.defects import VARIANTS, Defect
from strategies.emission import CompileResult
from strategies.errors import Diagnostics, InvalidConfigError, OverBudgetError, UncoveredDropError
from strategies.hierarchical import HierarchicalStrategy
from strategies.stats import RenderStats

__all__ = [
    "VARIANTS",
    "CompileResult",
    "Defect",
    "Diagnostics",
    "HierarchicalStrategy",
    "InvalidConfigError",
    "OverBudgetError",
    "RenderStats",
    "UncoveredDropError",
]
