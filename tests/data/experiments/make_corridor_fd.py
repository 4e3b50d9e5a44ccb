"""The fundamental diagram of the Jülich uni-directional corridor experiments (Zhang et al.
2011), measured with PedPy's method C, binned by density: tests/data/experiments/corridor_fd.csv.

The trajectories are PedPy's demo data (notebooks/demo-data/uni-directional/uo-*.txt in
github.com/PedestrianDynamics/PedPy, commit 8179b4b3): nine runs in a corridor 1.8 m wide, the
entrance and exit widths varied. The measurement area, the steady-state frames and the speed
window are those of PedPy's notebooks/fundamental_diagram.ipynb (method C): the area is
x in [0, 1.8], y in [-2, 0]; the classic density (people in the area / 3.6 m²) and the mean
speed of the people in it, each frame; individual speeds from the displacement over 5
frames either side (16 frames per second).

Each frame gives one (density, speed) pair; they are binned by density, 0.25 /m² wide, and
a bin's row is its centre, the mean speed of its frames, their standard deviation and how many
frames it holds (bins of fewer than 50 frames are left out).

    python make_corridor_fd.py PATH/TO/PedPy/notebooks/demo-data/uni-directional > corridor_fd.csv

needs pedpy (1.5.1 made the checked-in file) and numpy.
"""

import pathlib
import sys

import numpy as np
import pedpy
from pedpy import (
    MeasurementArea,
    SpeedCalculation,
    TrajectoryData,
    TrajectoryUnit,
    compute_classic_density,
    compute_individual_speed,
    compute_mean_speed_per_frame,
    load_trajectory,
)

STEADY = {
    "uo-050-180-180": (211, 800),
    "uo-060-180-180": (243, 771),
    "uo-070-180-180": (203, 1113),
    "uo-100-180-180": (200, 790),
    "uo-145-180-180": (300, 1097),
    "uo-180-180-070": (500, 1399),
    "uo-180-180-095": (400, 1350),
    "uo-180-180-120": (300, 1099),
    "uo-180-180-180": (400, 1284),
}
BIN = 0.25
MIN_FRAMES = 50


def main(folder: pathlib.Path) -> None:
    area = MeasurementArea([(0, -2), (0, 0), (1.8, 0), (1.8, -2)])
    densities, speeds = [], []
    for name, (first, last) in STEADY.items():
        traj = load_trajectory(
            trajectory_file=folder / f"{name}.txt",
            default_frame_rate=16.0,
            default_unit=TrajectoryUnit.CENTIMETER,
        )
        steady = TrajectoryData(
            data=traj.data[traj.data.frame.between(first, last)], frame_rate=traj.frame_rate
        )
        individual = compute_individual_speed(
            traj_data=steady, frame_step=5, speed_calculation=SpeedCalculation.BORDER_SINGLE_SIDED
        )
        speed = compute_mean_speed_per_frame(
            traj_data=steady, measurement_area=area, individual_speed=individual
        )
        density = compute_classic_density(traj_data=steady, measurement_area=area)
        joined = density.merge(speed, on="frame", how="inner")
        joined = joined[joined["density"] > 0]
        densities.extend(joined["density"].tolist())
        speeds.extend(joined["speed"].tolist())
    densities, speeds = np.array(densities), np.array(speeds)
    print(f"# PedPy {pedpy.__version__}, method C, {len(densities)} frames of 9 runs")
    print("density,speed_mean,speed_sd,frames")
    bins = np.floor(densities / BIN).astype(int)
    for b in sorted(set(bins.tolist())):
        sel = speeds[bins == b]
        if len(sel) < MIN_FRAMES:
            continue
        print(f"{(b + 0.5) * BIN:.3f},{sel.mean():.4f},{sel.std():.4f},{len(sel)}")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]))
