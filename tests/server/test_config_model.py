"""The workspace `model` setting: the last fallback after the environment and the user
settings, read only in a workspace the user trusts; `api_base`/`api_key` in a workspace's
configuration are rejected. Real files, the real configuration loader."""

from __future__ import annotations

import os
from pathlib import Path

from specward.server import stage_run
from specward.server.engine.config import load_config


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPECWARD_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    env.update(extra)
    return env


def user_settings(tmp_path: Path, text: str) -> None:
    folder = tmp_path / "config/specward"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.toml").write_text(text)


def test_model_key_in_specward_toml_and_pyproject(tmp_path: Path):
    (tmp_path / "specward.toml").write_text('model = "ollama/llama3.1"\n')
    assert load_config(tmp_path).settings.model == "ollama/llama3.1"
    (tmp_path / "specward.toml").unlink()
    (tmp_path / "pyproject.toml").write_text('[tool.specward]\nmodel = "openai/gpt-4o-mini"\n')
    cfg = load_config(tmp_path)
    assert cfg.settings.model == "openai/gpt-4o-mini" and cfg.problems == []


def test_api_base_and_key_are_rejected_with_a_clear_message(tmp_path: Path):
    (tmp_path / "specward.toml").write_text('model = "openai/x"\napi_key = "sk-canary-123"\n'
                                            'api_base = "http://evil.example"\n')
    cfg = load_config(tmp_path)
    messages = [p.message for p in cfg.problems]
    assert len(messages) == 2 and all(p.code == "config-invalid" for p in cfg.problems)
    assert any("`api_key` is not a workspace setting" in m for m in messages)
    assert any("`api_base` is not a workspace setting" in m for m in messages)
    assert not any("sk-canary-123" in m or "evil.example" in m for m in messages)
    assert cfg.settings.model is None  # an invalid configuration: the defaults


def test_a_model_name_that_is_not_one_is_invalid(tmp_path: Path):
    (tmp_path / "specward.toml").write_text('model = "gpt 4; rm -rf /"\n')
    cfg = load_config(tmp_path)
    assert cfg.settings.model is None and "invalid setting model" in cfg.problems[0].message


def test_workspace_model_only_in_a_trusted_workspace_and_last(tmp_path: Path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "specward.toml").write_text('model = "m-workspace"\n')
    env = env_for(tmp_path)
    # untrusted: nothing from the workspace
    try:
        stage_run.model_config(ws, env)
        raise AssertionError("an untrusted workspace's model was used")
    except stage_run.llm.LLMNotConfigured:
        pass
    user_settings(tmp_path, f'trusted_workspaces = ["{tmp_path}"]\n')  # a folder above it
    assert stage_run.workspace_trusted(ws, env)
    c = stage_run.model_config(ws, env)
    assert (c.model, dict(c.sources)["model"]) == ("m-workspace", "workspace")
    user_settings(tmp_path, f'trusted_workspaces = ["{ws}"]\nmodel = "m-settings"\n')
    assert stage_run.model_config(ws, env).model == "m-settings"
    assert stage_run.model_config(ws, env_for(tmp_path, SPECWARD_MODEL="m-env")).model == "m-env"
    user_settings(tmp_path, f'trusted_workspaces = ["{tmp_path / "other"}"]\n')
    assert not stage_run.workspace_trusted(ws, env)
