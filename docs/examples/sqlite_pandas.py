# A throng trace written with `--trace run.sqlite` in pandas, with throng's extra columns
# (group, velocity, radius) joined to PedPy's table. Run: python sqlite_pandas.py run.sqlite
import sqlite3
import sys

import pandas as pd

con = sqlite3.connect(sys.argv[1])
df = pd.read_sql_query(
    "SELECT t.frame, t.id, t.pos_x, t.pos_y, a.grp, a.vel_x, a.vel_y, a.radius "
    "FROM trajectory_data t JOIN throng_agents a USING (frame, id)", con)
fps = float(con.execute("SELECT value FROM metadata WHERE key = 'fps'").fetchone()[0])
df["time_s"] = df.frame / fps
print("rows:", len(df))
print("last time:", df.time_s.max())
print("groups:", sorted(df.grp.unique()))
