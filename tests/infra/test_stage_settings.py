"""app.py's stage settings (stages.toml), the first create that can roll back, prod's termination protection and the
user pool clients' settings: built as `make synth` builds them (app.py's `build_app`), with one small domain (fast)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import app
from infra.domains.users import users
from tests.infra.conftest import cli_context


def synth(stage: str, tmp_path: Path, **context) -> dict:
    built = app.build_app({}, {**cli_context(stage), **context}, outdir=str(tmp_path), domains=[users], nag=False)
    assembly = built.synth()
    stack = assembly.get_stack_by_name(f"Blueprints-{stage}")
    return {"template": json.loads(Path(stack.template_full_path).read_text()),
            "termination_protection": stack.termination_protection}


def of_type(template: dict, kind: str) -> list[dict]:
    return [r for r in template["Resources"].values() if r["Type"] == kind]


def test_the_committed_settings_file_names_only_known_settings_for_both_stages():
    for stage in ("dev", "prod"):
        assert set(app.stage_settings(stage)) <= set(app.SETTINGS_KEYS)
    assert app.stage_settings("prod")["explorer"] is False


def test_a_stages_settings_last_without_flags_and_a_flag_wins_for_one_command(tmp_path, monkeypatch):
    settings = tmp_path / "stages.toml"
    settings.write_text('[dev]\nalarmEmail = "ops@example.com"\nidTokenMinutes = 15\n')
    monkeypatch.setattr(app, "SETTINGS", settings)
    monkeypatch.setattr(app.stage_settings, "__defaults__", (settings,))
    kept = synth("dev", tmp_path / "a")["template"]
    assert [t["Properties"]["Protocol"] for t in of_type(kept, "AWS::SNS::Subscription")] == ["email"]
    assert {c["Properties"]["IdTokenValidity"] for c in of_type(kept, "AWS::Cognito::UserPoolClient")} == {15}
    overridden = synth("dev", tmp_path / "b", idTokenMinutes="30")["template"]
    assert {c["Properties"]["IdTokenValidity"] for c in of_type(overridden, "AWS::Cognito::UserPoolClient")} == {30}


def test_an_unknown_setting_or_an_impossible_token_lifetime_is_refused(tmp_path):
    settings = tmp_path / "stages.toml"
    settings.write_text('[dev]\nalarmEmial = "typo@example.com"\n')
    with pytest.raises(ValueError, match="unknown setting.*alarmEmial"):
        app.stage_settings("dev", settings)
    with pytest.raises(ValueError, match="5 to 1440"):
        app.id_token_minutes(2)


def test_prod_is_termination_protected_and_dev_is_not(tmp_path):
    assert synth("prod", tmp_path / "p")["termination_protection"] is True
    assert synth("dev", tmp_path / "d")["termination_protection"] is False


def test_a_first_create_of_prod_has_no_deletion_protection_so_its_rollback_can_delete(tmp_path):
    """DeleteTable and DeleteUserPool refuse protected resources: a failed first create would end ROLLBACK_FAILED."""
    first = synth("prod", tmp_path / "first", firstCreate="true")["template"]
    later = synth("prod", tmp_path / "later")["template"]
    for template, protected in ((first, False), (later, True)):
        pools = of_type(template, "AWS::Cognito::UserPool")
        assert [p["Properties"]["DeletionProtection"] for p in pools] == ["ACTIVE" if protected else "INACTIVE"]
        parked = [t for t in of_type(template, "AWS::DynamoDB::Table")
                  if t["DeletionPolicy"] == "RetainExceptOnCreate"]
        assert parked and {t["Properties"]["DeletionProtectionEnabled"] for t in parked} == {protected}


def test_both_clients_hide_whether_a_user_exists(tmp_path):
    clients = of_type(synth("dev", tmp_path)["template"], "AWS::Cognito::UserPoolClient")
    assert len(clients) == 2
    assert {c["Properties"]["PreventUserExistenceErrors"] for c in clients} == {"ENABLED"}
    assert {c["Properties"]["IdTokenValidity"] for c in clients} == {60}
    assert {c["Properties"]["TokenValidityUnits"]["IdToken"] for c in clients} == {"minutes"}


def test_the_stage_owns_its_execution_log_group_unless_api_gateway_made_it_before(tmp_path):
    def groups(template: dict) -> list[dict]:
        return [g for g in of_type(template, "AWS::Logs::LogGroup")
                if "API-Gateway-Execution-Logs_" in json.dumps(g["Properties"].get("LogGroupName", ""))]

    (owned,) = groups(synth("dev", tmp_path / "owned")["template"])
    assert owned["Properties"]["RetentionInDays"] == 90
    assert groups(synth("dev", tmp_path / "external", executionLogGroup="external")["template"]) == []
