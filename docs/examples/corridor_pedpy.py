# The corridor's fundamental diagram measured by PedPy (method C) on throng's trace, written with
#   throng run scenarios/models/corridor_fd.toml --trace corridor.sqlite --trace-every 5
# the classic density in the scene's measurement area and the mean speed there, from 20 s on,
# to set beside throng's own `areas.corridor.density_mean` and `speed_mean`.
# Run: python corridor_pedpy.py corridor.sqlite   (tests/cli/experiments.rs runs it)
import pathlib
import sys

import pedpy

path = pathlib.Path(sys.argv[1])
traj = pedpy.load_trajectory_from_jupedsim_sqlite(trajectory_file=path)
steady = pedpy.TrajectoryData(
    data=traj.data[traj.data.frame >= 20 * traj.frame_rate], frame_rate=traj.frame_rate
)

# The scene's `[[measure]] corridor`: 4 m of the corridor, its whole 1.8 m width.
area = pedpy.MeasurementArea([(12, 0), (16, 0), (16, 1.8), (12, 1.8)])
density = pedpy.compute_classic_density(traj_data=steady, measurement_area=area)
# Speeds from the displacement one frame either side (0.1 s at --trace-every 5); the world
# wraps at x = 30, far from the area, so no walker in it jumps the seam within a frame.
individual = pedpy.compute_individual_speed(
    traj_data=steady, frame_step=1, speed_calculation=pedpy.SpeedCalculation.BORDER_SINGLE_SIDED
)
speed = pedpy.compute_mean_speed_per_frame(
    traj_data=steady, measurement_area=area, individual_speed=individual
)
print("frames:", len(density))
print("mean density (1/m²):", round(density.density.mean(), 4))
print("mean speed (m/s):", round(speed.speed.mean(), 4))
