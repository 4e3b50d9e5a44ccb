# Every run's per-tick metrics of a batch (`throng report OUT --series series.parquet`, the
# batch keeping metrics), averaged over the seeds per swept value and tick. Run:
#   python series_pandas.py series.parquet groups.walkers.max_speed
import sys

import pandas as pd

s = pd.read_parquet(sys.argv[1])
key = "set." + sys.argv[2]
curves = s.groupby([key, "tick"]).mean_speed.mean().unstack(0)  # a column per swept value
print("ticks:", len(curves))
print("values:", list(curves.columns))
print("last:", " ".join(f"{v:.6f}" for v in curves.iloc[-1]))
# curves.plot() draws them (with matplotlib installed)
