"""``cmharness price FILE``: each message's price and each summary answer's price under the store's estimator."""

from __future__ import annotations

import argparse
from typing import TextIO

from reference.estimator import content_tokens
from reference.numerics import Number
from reference.price import live_prose
from reference.scenario import Scenario
from reports.cli.scenario_files import read_scenario
from reports.cli.terminal import fmt, format_table
from reports.exit_codes import Exit


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a scenario JSON file (see reference/scenario.py)")


def price_lines(scenario: Scenario) -> list[str]:
    """The ``price`` report: each message's ``E``, each summary's answer price, the messages' total."""
    store, config = scenario.store, scenario.config
    out = [
        f"calibration {fmt(store.calibration)}, pricing epoch {store.pricing_epoch}, "
        f"carrier policy {config.carrier_policy}",
        "",
        f"messages ({len(store.messages)})",
    ]
    total: Number = 0
    rows = []
    for m in store.messages:
        e = content_tokens(m.content, store)
        total += e
        rows.append([m.id, m.participant, fmt(e)])
    rows.append(["total", "", fmt(total)])
    out += format_table(["id", "participant", "E"], rows, [False, False, True])
    out += ["", f"summaries ({len(store.summaries)})"]
    srows = [
        [s.id, str(s.level), fmt(content_tokens(live_prose(s, config), store)), fmt(s.tokens)] for s in store.summaries
    ]
    out += format_table(["id", "level", "E(live prose)", "measured"], srows, [False, True, True, True])
    return out


def run(args: argparse.Namespace, stdout: TextIO) -> int:
    scenario = read_scenario(args.file)
    stdout.write("\n".join(price_lines(scenario)) + "\n")
    return Exit.OK
