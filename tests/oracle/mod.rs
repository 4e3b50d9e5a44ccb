//! Oracle tests: the engine's fast answers checked against brute force or a naive computation
//! written in the test: neighbour lists and nearest-of-group (k-d and grid against brute force,
//! brute force against all pairs), the obstacle index's candidates, and the metrics' overlapping
//! pairs.

mod host_queries;
mod jupedsim;
mod jupedsim_jams;
mod jupedsim_runs;
mod nearest_of_group;
mod neighbours;
mod neighbours_in_space;
mod obstacles;
mod orca;
mod overlap_pairs;
