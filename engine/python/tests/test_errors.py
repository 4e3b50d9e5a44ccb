"""Every error type is raised with its location: a file's line and column and key, an
override's key, a checkpoint of another scenario."""

from __future__ import annotations

import pytest

import throng
from conftest import room


def test_a_bad_value_in_a_file_names_its_line_column_and_key(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(room(False).replace("max_speed = 1.3", "max_speed = -2"))
    with pytest.raises(throng.ScenarioError) as e:
        throng.Scenario.load(path)
    err = e.value
    assert err.file == str(path)
    line = room(False).splitlines().index("max_speed = 1.3") + 1
    assert (err.line, err.column) == (line, 13)
    assert err.key == "groups[0].max_speed"
    assert "found -2" in err.message
    assert str(err).startswith(f"{path}:{line}:13: `groups[0].max_speed`")


def test_a_syntax_error_in_text_names_its_place():
    with pytest.raises(throng.ScenarioError) as e:
        throng.Scenario.from_toml('version = 1\nname = "x"\nseed = [', origin="inline.toml")
    assert e.value.file == "inline.toml" and e.value.line == 3


def test_a_bad_override_names_its_key_and_a_missing_file_its_path(scenarios, tmp_path):
    with pytest.raises(throng.ScenarioError) as e:
        throng.Scenario.load(scenarios / "doorway.toml", overrides={"groups.crowd.max_sped": 2})
    assert e.value.file == "overrides" and "max_sped" in e.value.key
    assert "max_speed" in e.value.message, "a suggestion"
    with pytest.raises(throng.ScenarioError) as e:
        throng.Scenario.load(tmp_path / "missing.toml")
    assert e.value.file.endswith("missing.toml")
    with pytest.raises(TypeError):
        throng.Scenario.load(scenarios / "doorway.toml", overrides={"dt": object()})


def test_a_key_set_twice_is_refused(scenarios):
    scenario = throng.Scenario.load(scenarios / "doorway.toml", overrides={"dt": 0.05})
    with pytest.raises(throng.ScenarioError, match="already set"):
        scenario.with_overrides({"dt": 0.2})


def test_a_checkpoint_of_another_scenario_is_refused(scenarios, tmp_path):
    sim = throng.Simulation(throng.Scenario.load(scenarios / "doorway.toml"))
    sim.run(3)
    path = tmp_path / "doorway.ckpt"
    sim.save_checkpoint(path)
    with pytest.raises(throng.SimulationError, match="another|different|not"):
        throng.Simulation.resume(throng.Scenario.load(scenarios / "flock.toml"), path)
    with pytest.raises(ValueError, match="seed"):
        throng.Simulation(sim.scenario, seed=3, checkpoint=path)


def test_bad_settings_are_refused(scenarios):
    scenario = throng.Scenario.load(scenarios / "doorway.toml")
    with pytest.raises(ValueError, match="kd, brute, grid"):
        throng.Simulation(scenario, index="octree")
    with pytest.raises(ValueError, match="threads"):
        throng.Simulation(scenario, threads=0)
