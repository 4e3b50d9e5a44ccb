# Times JuPedSim's own SQLite trajectory writer (jupedsim.SqliteTrajectoryWriter) per written
# frame, on a crowd of N agents on a grid (its collision-free speed model walking to a corner),
# beside the simulation's own iteration time. docs/benchmarks.md compares it with throng's.
#   python3 -m venv v && v/bin/pip install jupedsim
#   v/bin/python bench/jupedsim/writer.py 100000 11      # agents, frames
import pathlib, sys, time, random
import jupedsim as jps
from shapely import Polygon

n = int(sys.argv[1]); frames = int(sys.argv[2])
side = 2.0 * n ** 0.5
area = Polygon([(0, 0), (side, 0), (side, side), (0, side)])
path = pathlib.Path("/tmp/jps.sqlite")
path.unlink(missing_ok=True)
writer = jps.SqliteTrajectoryWriter(output_file=path, every_nth_frame=1)
sim = jps.Simulation(model=jps.CollisionFreeSpeedModel(), geometry=area, trajectory_writer=None)
exit_id = sim.add_exit_stage([(side - 1, side - 1), (side, side - 1), (side, side), (side - 1, side)])
journey = sim.add_journey(jps.JourneyDescription([exit_id]))
random.seed(1)
g = int(n ** 0.5) + 1
for k in range(n):
    x = (k % g + 0.5) * side / g; y = (k // g + 0.5) * side / g
    sim.add_agent(jps.CollisionFreeSpeedModelAgentParameters(journey_id=journey, stage_id=exit_id, position=(x, y)))
writer.begin_writing(sim)
t_sim = t_write = 0.0
for _ in range(frames):
    a = time.perf_counter(); sim.iterate(); b = time.perf_counter()
    writer.write_iteration_state(sim); c = time.perf_counter()
    t_sim += b - a; t_write += c - b
writer.close()
print(f"agents {n} frames {frames}: iterate {t_sim / frames * 1e3:.1f} ms, write {t_write / frames * 1e3:.1f} ms per frame "
      f"({t_write / (frames * n) * 1e6:.2f} us per row), file {path.stat().st_size / (frames * n) * 1e6 / 1e6:.1f} MB per million rows")
