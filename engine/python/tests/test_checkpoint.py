"""Checkpoints saved in Python resume bit for bit, in Python and in the command line."""

from __future__ import annotations

import throng
from conftest import cli_run


def test_a_checkpoint_resumes_to_the_straight_runs_hash(scenarios, tmp_path):
    scenario = throng.Scenario.load(scenarios / "doorway.toml")
    straight = throng.Simulation(scenario, threads=2)
    straight.run(200)
    first = throng.Simulation(scenario, threads=1)
    first.run(80)
    path = tmp_path / "at80.ckpt"
    first.save_checkpoint(path)
    resumed = throng.Simulation.resume(scenario, path, threads=3, index="grid")
    assert isinstance(resumed, throng.Simulation) and resumed.tick == 80
    resumed.run(120)
    assert resumed.hash == straight.hash
    assert path.read_bytes() == first.checkpoint()


def test_a_python_checkpoint_resumes_in_the_command_line(scenarios, throng_bin, tmp_path):
    path = scenarios / "doorway.toml"
    scenario = throng.Scenario.load(path)
    sim = throng.Simulation(scenario, threads=2)
    sim.run(100)
    checkpoint = tmp_path / "at100.ckpt"
    sim.save_checkpoint(checkpoint)
    sim.run(150)
    cli = cli_run(throng_bin, str(path), "--resume", str(checkpoint), "--ticks", "250")
    assert cli["hash"] == sim.hash


def test_a_command_line_checkpoint_resumes_in_python(scenarios, throng_bin, tmp_path):
    path = scenarios / "doorway.toml"
    cli_run(
        throng_bin, str(path), "--ticks", "120", "--checkpoint-every", "60", "--checkpoint-dir", str(tmp_path)
    )
    checkpoint = tmp_path / "tick-0000000060.ckpt"
    assert checkpoint.is_file()
    resumed = throng.Simulation.resume(throng.Scenario.load(path), checkpoint, threads=2)
    assert resumed.tick == 60
    resumed.run(60)
    straight = throng.Simulation(throng.Scenario.load(path))
    straight.run(120)
    assert resumed.hash == straight.hash
