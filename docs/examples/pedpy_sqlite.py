# Load a throng trace written with `--trace run.sqlite` in PedPy and measure a density and a
# speed. Run: python pedpy_sqlite.py run.sqlite   (tests/cli/trace_formats.rs runs it as is)
import pathlib
import sys

import pedpy

path = pathlib.Path(sys.argv[1])
traj = pedpy.load_trajectory_from_jupedsim_sqlite(trajectory_file=path)
walkable = pedpy.load_walkable_area_from_jupedsim_sqlite(trajectory_file=path)
print("frame rate:", traj.frame_rate)
print("frames:", traj.data.frame.nunique())
print("pedestrians:", traj.data.id.nunique())
print("walkable area:", walkable.polygon.area)

# A 4 x 4 measurement area east of the door, the classic density in it, and the mean speed of
# the walkers inside it (speeds from positions 5 frames apart; single-sided at the ends of a
# walker's trajectory, so every position has a speed).
area = pedpy.MeasurementArea([(21, 8), (25, 8), (25, 12), (21, 12)])
density = pedpy.compute_classic_density(traj_data=traj, measurement_area=area)
speed = pedpy.compute_individual_speed(
    traj_data=traj, frame_step=5, speed_calculation=pedpy.SpeedCalculation.BORDER_SINGLE_SIDED
)
mean_speed = pedpy.compute_mean_speed_per_frame(traj_data=traj, measurement_area=area, individual_speed=speed)
print("max density:", density.density.max())
print("mean speed:", mean_speed.speed.mean() if len(mean_speed) else 0.0)
