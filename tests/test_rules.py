"""The one rule registry (`clarion.rules`): both tasks' rules, found by task, switched by name, unknown ones refused."""

from __future__ import annotations

import pytest

from clarion.errors import InputError
from clarion.rules import RULES, TASKS, Rule, default_rules, register, resolved, rules_of

DSTC = ["ask_entity", "known_sets", "entity_follow_up", "comparisons", "faq_cover", "relevance_gate"]
CONVERSE = ["closing", "settled", "specific_question"]


def test_one_registry_holds_both_tasks_rules_found_by_task():
    assert TASKS == ("dstc", "converse")
    assert list(rules_of("dstc")) == DSTC and list(rules_of("converse")) == CONVERSE
    assert list(RULES) == DSTC + CONVERSE
    assert all(rule.summary and rule.stage for rule in RULES.values())
    assert {RULES[name].stage for name in CONVERSE} == {"policy"}
    with pytest.raises(ValueError, match="no task 'chat'"):
        rules_of("chat")


def test_default_rules_are_one_tasks_and_the_pipeline_config_lists_only_the_dstc_ones():
    from clarion.dstc.models.config import PipelineConfig

    assert list(default_rules()) == list(default_rules("dstc")) == DSTC
    assert default_rules("converse") == {name: {} for name in CONVERSE}
    assert set(PipelineConfig().rules) == set(DSTC)
    with pytest.raises(KeyError, match="no DSTC rule 'closing'"):
        PipelineConfig().uses("closing")


@pytest.mark.parametrize("value", [{}, True, None, False])
@pytest.mark.parametrize(("task", "name"), [("dstc", "closing"), ("converse", "ask_entity"), ("dstc", "downsides")])
def test_a_rule_unknown_to_the_task_is_a_one_line_error_on_or_off(task, name, value):
    with pytest.raises(InputError) as err:
        resolved({name: value}, "owner", task)
    assert str(err.value) == f"owner: no rule {name!r}; rules: {', '.join(rules_of(task))}"


def test_switching_takes_parameters_by_name_and_drops_what_is_off():
    assert resolved({"faq_cover": {"cover": 0.7}, "ask_entity": True, "comparisons": None}) == {
        "ask_entity": {},
        "faq_cover": {"cover": 0.7},
    }
    assert resolved({"settled": True, "closing": False}, task="converse") == {"settled": {}}
    with pytest.raises(InputError, match=r"PipelineConfig.rules.faq_cover.cover must be float in \[0, 1\]"):
        resolved({"faq_cover": {"cover": 2}})


def test_registering_checks_the_name_and_the_task():
    before = dict(RULES)
    with pytest.raises(ValueError, match="registered twice"):
        register(Rule("closing", "policy", "again", task="converse"))
    with pytest.raises(ValueError, match="no task 'chat'"):
        register(Rule("greeting", "policy", "says hello", task="chat"))
    assert RULES == before
