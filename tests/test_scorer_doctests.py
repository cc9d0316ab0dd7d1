"""The examples in the scorer's docstrings hold: every module of ``scorer`` is run as doctests
(as python-chess runs its own), and the entry points a reader starts from show examples."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import scorer

MODULES = sorted(m.name for m in pkgutil.iter_modules(scorer.__path__, "scorer."))
WITH_EXAMPLES = {"scorer.cards": "parse_card", "scorer.melds": "best_melds",
                 "scorer.hand": "score_hand"}


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_in_the_docstrings_hold(name):
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report: list[str] = []
    for test in doctest.DocTestFinder().find(module):
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


@pytest.mark.parametrize("name", sorted(WITH_EXAMPLES))
def test_the_entry_points_show_examples(name):
    function = getattr(importlib.import_module(name), WITH_EXAMPLES[name])
    examples = doctest.DocTestParser().get_examples(function.__doc__ or "")
    assert len(examples) >= 2, f"{name}.{function.__name__} has no examples in its docstring"
