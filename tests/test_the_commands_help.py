"""`tickwork --help` lists every verb the command has, and `tickwork VERB --help` answers for that
verb alone (issue 23, "What a newcomer tripped on")."""

import pytest

from tickwork_cli.cli import parser
from tickwork_tool.command import main


def test_the_general_help_names_every_operator_verb(capsys):
    assert main(["--help"]) == 0
    usage = capsys.readouterr().out
    listed = set(usage.split("The operator's verbs", 1)[1].split(":\n", 1)[1].replace(",", " ").split())
    assert set(parser()._subparsers._group_actions[0].choices) <= listed


@pytest.mark.parametrize("verb", ["dev", "tick"])
def test_dev_and_tick_help_is_their_own_with_their_flags_not_the_general_help(verb, capsys):
    assert main([verb, "--help"]) == 0
    usage = capsys.readouterr().out
    assert usage.startswith(f"usage: tickwork {verb}")
    assert "The operator's verbs" not in usage
    for flag in {"dev": ["--port", "--json", "--fresh", "--no-timer"], "tick": ["--far", "--json"]}[verb]:
        assert flag in usage
