# A throng trace written with `--trace run.txt` in PedPy (its text loader reads the frame rate
# and the unit from the header). Run: python pedpy_txt.py run.txt
import pathlib
import sys

import pedpy

traj = pedpy.load_trajectory_from_txt(trajectory_file=pathlib.Path(sys.argv[1]))
print(traj.frame_rate, traj.data.frame.nunique(), traj.data.id.nunique(), traj.data.x.max())
