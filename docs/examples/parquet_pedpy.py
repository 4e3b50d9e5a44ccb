# A throng Parquet trace as a PedPy trajectory (PedPy has no Parquet loader), as
# docs/output.md shows it; tests/cli/parquet_output.rs runs this file:
#   python parquet_pedpy.py run.parquet
import sys

import pandas as pd
import pedpy
import pyarrow.parquet as pq

path = sys.argv[1]
meta = pq.read_schema(path).metadata
dt, every = float(meta[b"throng.dt"]), int(meta[b"throng.trace_every"])
df = pd.read_parquet(path, columns=["tick", "id", "x", "y"])
df["frame"] = df.tick // every  # PedPy's frames are consecutive: frame / frame_rate is the time
traj = pedpy.TrajectoryData(data=df[["id", "frame", "x", "y"]], frame_rate=1 / (dt * every))

area = pedpy.MeasurementArea([(21, 8), (25, 8), (25, 12), (21, 12)])
density = pedpy.compute_classic_density(traj_data=traj, measurement_area=area)
print("frame rate:", traj.frame_rate)
print("frames:", traj.data.frame.nunique())
print("max density:", density.density.max())
