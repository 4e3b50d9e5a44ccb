# The pedestrian quick start (README): the bottleneck's trace, written with
#   throng run scenarios/models/bottleneck.toml --trace bottleneck.sqlite --trace-every 5
# loaded in PedPy, with the flow through the bottleneck at a line and the density in front of
# it. Run: python bottleneck_pedpy.py bottleneck.sqlite   (tests/cli/trace_formats.rs runs it)
import pathlib
import sys

import pedpy

path = pathlib.Path(sys.argv[1])
traj = pedpy.load_trajectory_from_jupedsim_sqlite(trajectory_file=path)

# The line across the bottleneck's mouth (the scene's gate), and the area in front of it.
line = pedpy.MeasurementLine([(11, 4.4), (11, 5.6)])
nt, crossing_frames = pedpy.compute_n_t(traj_data=traj, measurement_line=line)
crossing = nt[nt.cumulative_pedestrians > 0]
first, last = crossing.time.iloc[0], crossing.time.iloc[-1]
crossed = int(nt.cumulative_pedestrians.iloc[-1])
print("crossed the line:", crossed)
print("first and last crossing (s):", round(first, 2), round(last, 2))
# From the first crossing to the last, as throng's `gates.NAME.passage_per_s` counts it.
print("flow (persons/s):", round((crossed - 1) / (last - first), 3))

area = pedpy.MeasurementArea([(8, 3.5), (10, 3.5), (10, 6.5), (8, 6.5)])
density = pedpy.compute_classic_density(traj_data=traj, measurement_area=area)
print("mean density in front of the bottleneck while it empties (1/m²):", round(density.density[density.density > 0].mean(), 2))
