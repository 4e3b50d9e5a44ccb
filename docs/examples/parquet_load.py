# Loading a throng Parquet trace and metrics file with pandas, polars and pyarrow, as
# docs/output.md shows it; tests/cli/parquet_output.rs runs this file:
#   python parquet_load.py run.parquet run-metrics.parquet
import sys

import pandas as pd
import polars as pl
import pyarrow.parquet as pq

trace_path, metrics_path = sys.argv[1], sys.argv[2]

# One line each.
df = pd.read_parquet(trace_path)
lf = pl.read_parquet(trace_path)
metrics = pd.read_parquet(metrics_path)

# The run that made it: scenario, BLAKE3, seed, dt, overrides, engine, trace interval.
meta = {k.decode(): v.decode() for k, v in pq.read_schema(trace_path).metadata.items()}

print("pandas rows:", len(df))
print("polars rows:", lf.height)
print("groups:", sorted(df["group"].unique()))
print("scenario:", meta["throng.scenario"])
print("dt:", meta["throng.dt"])
print("metrics rows:", len(metrics))
# One value of every column: the first walker (by id) at tick 60.
first = lf.filter(pl.col("tick") == 60).sort("id").row(0, named=True)
print("first walker at tick 60:", " ".join(f"{k}={v!r}" for k, v in first.items()))
print("mean speed at the last tick:", metrics["mean_speed"].iloc[-1])
