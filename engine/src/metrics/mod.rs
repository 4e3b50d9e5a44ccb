//! Crowd metrics, observed after a tick: counts, speeds, overlaps, obstacle penetrations,
//! stuck agents, queues, waiting time, polarisation and gate throughput; `areas` the
//! measurement areas (density, speed) and the gates' flow per unit width; `catalogue` the one
//! list of tick metrics every file, report, plot and expectation names them from.
//!
//! Everything here is deterministic: counts are integers (any summation order gives the same
//! total), and float means are summed serially in row (id) order, never through rayon.

mod areas;
mod catalogue;
mod config;
mod goal;
mod legacy;
mod overlaps;
mod parties;
mod stages;
mod state_error;
mod steerbench;

pub use areas::{AreaReading, AreaSummary, AreaTotals};
pub use catalogue::{
    OverRun, Reading, Span, TICK_METRICS, TickMetric, docs_table, panels_table, tick_metric,
};
pub use config::MetricsConfig;
pub use goal::goal_of;
pub(crate) use legacy::MetricsStateV5;
pub use parties::{Formation, PartyReading, PartySummary, PartyTotals, Shape, formation};
pub use stages::{StageReading, StageSummary, reading as stage_reading};
pub use state_error::MetricsStateError;
pub use steerbench::{COLLISION_WEIGHT, FRAMES_PER_S, SteerBenchState, SteerBenchSummary};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::index::ObstacleIndex;
use crate::index::{IndexKind, Point, SpatialIndex};
use crate::math::{Vec2, norm};
use crate::pipeline::TickEvents;
use crate::world::{Dimension, Scene, World};

/// A body reaching this far (world units) into an obstacle counts as a penetration.
pub const PENETRATION_TOLERANCE: f32 = 1e-3;

/// The metrics of one tick.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TickMetrics {
    /// The world's tick after the step observed: ticks completed so far (1 after the first).
    pub tick: u64,
    /// Simulated time at the end of that tick, `tick · dt` (seconds).
    pub time_s: f64,
    /// Live agents after the tick (spawned ones in, exited ones out).
    pub agents_active: u64,
    /// Removed by exits, since tick 0.
    pub agents_exited: u64,
    /// Added by spawn sources, since tick 0 (like `agents_exited`).
    pub agents_spawned: u64,
    /// Mean |v| over live agents (units per second).
    pub mean_speed: f64,
    /// Pairs of live agents closer than the sum of their radii.
    pub overlap_pairs: u64,
    /// Live agents reaching more than `PENETRATION_TOLERANCE` into an obstacle, after
    /// `collide` has pushed bodies out.
    pub obstacle_penetrations: u64,
    /// Agents whose step this tick went into or through an obstacle: their centre's path from
    /// where the tick found them to where they moved, before the push-out, entered one they did
    /// not start in (`passes::collide`).
    pub wall_crossings: u64,
    /// The deepest reach of a body into an obstacle this tick, before `collide` pushed it out
    /// (units; 0 when none reached into one).
    pub wall_depth: f64,
    /// Agents with a goal that moved less than `stuck_distance` over the last complete window
    /// while not within `goal_radius` of their goal.
    pub stuck_agents: u64,
    /// Agents that had a blocker (queue braking) this tick.
    pub queue_length: u32,
    /// |mean of normalised velocities| over moving agents: 1 when all head the same way.
    pub polarisation: f64,
    /// Crossings of each gate this tick, in gate order.
    pub gate_crossings: Vec<u32>,
    /// Each gate's flow this tick: crossings per second per unit of its length, in gate order.
    pub gate_flow: Vec<f64>,
    /// Each measurement area after the tick, in `[[measure]]` order.
    pub areas: Vec<AreaReading>,
    /// Each journey stage after the tick, in `[[stages]]` order.
    pub stages: Vec<StageReading>,
    /// The walking parties after the tick; `None` when no group walks in parties.
    pub parties: Option<PartyReading>,
}

/// A gate's throughput over the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GateSummary {
    /// The gate's `name` in the scenario.
    pub name: String,
    /// Crossings, either way, over every observed tick.
    pub crossings: u64,
    /// Throughput: `crossings` divided by the observed time, observed ticks · `dt`
    /// (crossings per second).
    pub per_s: f64,
    /// Specific flow: `per_s` per unit of the gate's length (crossings per second per unit
    /// width).
    pub flow: f64,
    /// Flow while the crowd passes: (crossings − 1) over the time from the tick of the first
    /// crossing to the tick of the last (the time gaps between crossers, as a flow is measured
    /// at a line in the field); 0 with fewer than two crossings or all in one tick.
    pub passage_per_s: f64,
}

/// The run's summary (`metrics` in `throng run --json`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Simulated seconds at the end (ticks run × dt): with a `stop` event when the last agent
    /// leaves, the evacuation time.
    pub time_s: f64,
    /// Live agents at the end.
    pub agents_active: u64,
    /// Agents removed by exits since tick 0 (`World::exited`).
    pub agents_exited: u64,
    /// Agents added by spawn sources over the observed ticks.
    pub agents_spawned: u64,
    /// Final mean speed.
    pub mean_speed: f64,
    /// Most overlapping pairs on any observed tick (see [`TickMetrics::overlap_pairs`]).
    pub overlap_pairs: u64,
    /// Most agents penetrating an obstacle on any observed tick (see
    /// [`TickMetrics::obstacle_penetrations`]).
    pub obstacle_penetrations: u64,
    /// Steps through an obstacle over every observed tick (the sum of
    /// [`TickMetrics::wall_crossings`]).
    pub wall_crossings: u64,
    /// The deepest reach into an obstacle before the push-out on any observed tick (see
    /// [`TickMetrics::wall_depth`]).
    pub wall_depth: f64,
    /// Most stuck agents on any observed tick (see [`TickMetrics::stuck_agents`]).
    pub stuck_agents: u64,
    /// Most agents braking behind a blocker on any observed tick (see
    /// [`TickMetrics::queue_length`]).
    pub queue_length_max: u32,
    /// Seconds an agent spent braking behind a blocker, averaged over every agent that lived.
    pub mean_wait_s: f64,
    /// Final polarisation.
    pub polarisation: f64,
    /// Throughput of every gate, in scenario order.
    pub gates: Vec<GateSummary>,
    /// Every measurement area over the run, in `[[measure]]` order.
    pub areas: Vec<AreaSummary>,
    /// Every journey stage over the run, in `[[stages]]` order.
    pub stages: Vec<StageSummary>,
    /// The parties' formations over the run; `None` when no group walks in parties.
    pub parties: Option<PartySummary>,
    /// SteerBench's measures and composite score, with `[metrics] steerbench = true` (`null`
    /// otherwise: the summary is also kept in checkpoints, whose encoding skips no field).
    pub steerbench: Option<SteerBenchSummary>,
}

/// Observes a run tick by tick and keeps what the summary needs, in the plane (`V = Vec2`)
/// or in space.
pub struct MetricsCollector<V: Point = Vec2> {
    config: MetricsConfig,
    window_ticks: u64,
    index: SpatialIndex<V>,
    targeted: Vec<bool>,
    state: MetricsState<V>,
}

/// What a [`MetricsCollector`] carries from tick to tick: with the world, all a resumed run
/// needs to go on observing exactly as the uninterrupted run would have (checkpoints hold it).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MetricsState<V = Vec2> {
    /// Position at the last window boundary, by agent id (ids are dense).
    anchor: Vec<V>,
    anchored: Vec<bool>,
    stuck: u64,
    blocked_agent_ticks: u64,
    spawned: u64,
    gate_totals: Vec<u64>,
    /// Per gate, the ticks of its first and its last crossing.
    gate_spans: Vec<Option<(u64, u64)>>,
    area_totals: Vec<AreaTotals>,
    /// Per journey stage, the most agents its waiting area held on an observed tick.
    stage_queue_max: Vec<u64>,
    /// The parties' readings summed over the run.
    party_totals: PartyTotals,
    observed_ticks: u64,
    summary: Summary,
    last: TickMetrics,
    steerbench: SteerBenchState,
}

impl<V: Point> MetricsCollector<V> {
    /// A collector for a run starting from `world` (usually at tick 0): every live agent is
    /// anchored where it stands for the first stuck-agent window of
    /// `config.stuck_window_s`.
    pub fn new(config: MetricsConfig, world: &World<V>) -> MetricsCollector<V> {
        let mut c = MetricsCollector {
            config,
            window_ticks: Self::window_ticks(config, world),
            index: SpatialIndex::new(IndexKind::Grid),
            targeted: vec![false; world.groups.len()],
            state: MetricsState {
                gate_totals: vec![0; world.scene.parts().gates.len()],
                gate_spans: vec![None; world.scene.parts().gates.len()],
                area_totals: vec![AreaTotals::default(); world.scene.parts().measures.len()],
                stage_queue_max: vec![0; world.scene.parts().stages.len()],
                ..MetricsState::default()
            },
        };
        c.anchor_all(world);
        c
    }

    /// A collector that goes on from `state`, saved (by [`MetricsCollector::state`]) when
    /// `world` was at its tick: the next ticks observe, and the summary covers, exactly what
    /// they would have in the uninterrupted run. Refuses a state that does not fit the world.
    pub fn resume(
        config: MetricsConfig,
        world: &World<V>,
        state: MetricsState<V>,
    ) -> Result<MetricsCollector<V>, MetricsStateError> {
        let ids = world.next_id as usize;
        if state.anchor.len() != state.anchored.len() || state.anchor.len() > ids {
            return Err(MetricsStateError::Anchors {
                anchors: state.anchor.len(),
                flags: state.anchored.len(),
                ids,
            });
        }
        if state.gate_totals.len() != world.scene.parts().gates.len()
            || state.gate_spans.len() != world.scene.parts().gates.len()
        {
            return Err(MetricsStateError::Gates {
                saved: state.gate_totals.len(),
                scenario: world.scene.parts().gates.len(),
            });
        }
        if state.area_totals.len() != world.scene.parts().measures.len() {
            return Err(MetricsStateError::Areas {
                saved: state.area_totals.len(),
                scenario: world.scene.parts().measures.len(),
            });
        }
        if state.stage_queue_max.len() != world.scene.parts().stages.len() {
            return Err(MetricsStateError::Stages {
                saved: state.stage_queue_max.len(),
                scenario: world.scene.parts().stages.len(),
            });
        }
        if state.observed_ticks > world.tick || state.last.tick != world.tick && state.observed_ticks > 0 {
            return Err(MetricsStateError::Tick {
                saved: state.last.tick,
                observed: state.observed_ticks,
                world: world.tick,
            });
        }
        // The saved anchors replace those `new` would set, so they are not set first.
        Ok(MetricsCollector {
            config,
            window_ticks: Self::window_ticks(config, world),
            index: SpatialIndex::new(IndexKind::Grid),
            targeted: vec![false; world.groups.len()],
            state,
        })
    }

    /// Ticks per stuck-agent window.
    fn window_ticks(config: MetricsConfig, world: &World<V>) -> u64 {
        ((config.stuck_window_s / world.dt).round() as u64).max(1)
    }

    /// What the collector carries from tick to tick, for a checkpoint.
    pub fn state(&self) -> &MetricsState<V> {
        &self.state
    }

    fn anchor_all(&mut self, world: &World<V>) {
        let n = world.next_id as usize;
        let s = &mut self.state;
        s.anchor.resize(n, V::ZERO);
        s.anchored.resize(n, false);
        for (&id, &p) in world.agents.id.iter().zip(&world.agents.position) {
            s.anchor[id as usize] = p;
            s.anchored[id as usize] = true;
        }
    }

    /// Records the tick just run. `events` and `obstacles` come from the pipeline that ran it;
    /// call it after every tick so the counters see every event, and inside the pipeline's
    /// `install` (as `Simulation::step` does) to use its threads.
    pub fn observe(
        &mut self,
        world: &World<V>,
        events: &TickEvents,
        obstacles: Option<&ObstacleIndex>,
    ) -> &TickMetrics {
        let n = world.agents.len();
        self.state.observed_ticks += 1;
        self.state.spawned += events.spawned as u64;
        self.state.blocked_agent_ticks += events.queue_length as u64;
        for ((t, span), c) in
            self.state.gate_totals.iter_mut().zip(&mut self.state.gate_spans).zip(&events.gate_crossings)
        {
            *t += *c as u64;
            if *c > 0 {
                *span = Some((span.map_or(world.tick, |(first, _)| first), world.tick));
            }
        }

        let (mean_speed, polarisation, overlap_pairs, obstacle_penetrations) = self.instant(world, obstacles);
        if self.config.steerbench {
            let touching = overlaps::touching(&self.index, world);
            let inside: Vec<u32> = (0..n)
                .filter(|&i| V::penetration_depth(world, obstacles, i) > PENETRATION_TOLERANCE)
                .map(|i| world.agents.id[i])
                .collect();
            self.state.steerbench.observe(world, touching, &inside);
        }
        if world.tick.is_multiple_of(self.window_ticks) {
            self.state.stuck = self.count_stuck(world);
            self.anchor_all(world);
        }

        let party_reading = parties::read(world);
        if let Some(r) = &party_reading {
            self.state.party_totals.add(r);
        }
        let stage_readings = stages::read(world);
        for (q, r) in self.state.stage_queue_max.iter_mut().zip(&stage_readings) {
            *q = (*q).max(r.queue);
        }
        let area_readings = read_areas(world);
        for ((t, r), m) in
            self.state.area_totals.iter_mut().zip(&area_readings).zip(world.scene.parts().measures)
        {
            if world.tick >= m.start_tick {
                t.add(r);
            }
        }
        self.state.last = TickMetrics {
            tick: world.tick,
            time_s: world.time_s(),
            agents_active: n as u64,
            agents_exited: world.exited,
            agents_spawned: self.state.spawned,
            mean_speed,
            overlap_pairs,
            obstacle_penetrations,
            wall_crossings: events.wall_crossings as u64,
            wall_depth: events.wall_depth as f64,
            stuck_agents: self.state.stuck,
            queue_length: events.queue_length,
            polarisation,
            gate_crossings: events.gate_crossings.clone(),
            gate_flow: world
                .scene
                .parts()
                .gates
                .iter()
                .zip(&events.gate_crossings)
                .map(|(g, &c)| areas::flow(g, c, world.dt))
                .collect(),
            areas: area_readings,
            stages: stage_readings,
            parties: party_reading,
        };
        let s = &mut self.state.summary;
        s.overlap_pairs = s.overlap_pairs.max(overlap_pairs);
        s.obstacle_penetrations = s.obstacle_penetrations.max(obstacle_penetrations);
        s.wall_crossings += events.wall_crossings as u64;
        s.wall_depth = s.wall_depth.max(events.wall_depth as f64);
        s.stuck_agents = s.stuck_agents.max(self.state.stuck);
        s.queue_length_max = s.queue_length_max.max(events.queue_length);
        &self.state.last
    }

    /// The metrics of `world` as it starts (tick 0, before any step): nothing has happened
    /// yet, so the counts of events are 0 and no agent is stuck. Observes nothing: the
    /// collector's state and summary are as they were.
    pub fn initial(&mut self, world: &World<V>) -> TickMetrics {
        let obstacles = V::walls_index(world);
        let (mean_speed, polarisation, overlap_pairs, obstacle_penetrations) =
            self.instant(world, obstacles.as_ref());
        TickMetrics {
            tick: world.tick,
            time_s: world.time_s(),
            agents_active: world.agents.len() as u64,
            agents_exited: world.exited,
            agents_spawned: 0,
            mean_speed,
            overlap_pairs,
            obstacle_penetrations,
            wall_crossings: 0,
            wall_depth: 0.0,
            stuck_agents: 0,
            queue_length: 0,
            polarisation,
            gate_crossings: vec![0; world.scene.parts().gates.len()],
            gate_flow: vec![0.0; world.scene.parts().gates.len()],
            areas: read_areas(world),
            stages: stages::read(world),
            parties: parties::read(world),
        }
    }

    /// What a state shows on its own: mean speed, polarisation, overlapping pairs and
    /// obstacle penetrations.
    fn instant(&mut self, world: &World<V>, obstacles: Option<&ObstacleIndex>) -> (f64, f64, u64, u64) {
        let a = &world.agents;
        let n = a.len();
        // Serial, in id order: the float means depend neither on the thread count nor on a
        // spatial reordering of the rows.
        let mut speed_sum = 0.0f64;
        let mut heading = [0.0f64; 3];
        let mut moving = 0u64;
        let order = a.id_order();
        let rows: Box<dyn Iterator<Item = usize>> = match &order {
            None => Box::new(0..n),
            Some(o) => Box::new(o.iter().map(|&r| r as usize)),
        };
        for v in rows.map(|r| &a.velocity[r]) {
            let s = v.length();
            speed_sum += s as f64;
            if s > 0.0 {
                let h = norm(*v);
                for (axis, sum) in heading.iter_mut().enumerate().take(V::DIMENSIONS) {
                    *sum += h.axis(axis) as f64;
                }
                moving += 1;
            }
        }
        let mean_speed = if n > 0 { speed_sum / n as f64 } else { 0.0 };
        let polarisation = if moving > 0 {
            // The same sum of squares in the plane (its third term is +0.0).
            (heading[0] * heading[0] + heading[1] * heading[1] + heading[2] * heading[2]).sqrt()
                / moving as f64
        } else {
            0.0
        };
        let overlap_pairs = overlaps::count(&mut self.index, world, &self.targeted);
        // Nothing to reach into without obstacles (the standard crowd): no pass over the rows.
        let obstacle_penetrations = if world.obstacles.is_empty() {
            0
        } else {
            (0..n)
                .into_par_iter()
                .filter(|&i| V::penetration_depth(world, obstacles, i) > PENETRATION_TOLERANCE)
                .count() as u64
        };
        (mean_speed, polarisation, overlap_pairs, obstacle_penetrations)
    }

    /// Crossings of each gate over every observed tick, in gate order.
    pub fn gate_totals(&self) -> &[u64] {
        &self.state.gate_totals
    }

    /// The metrics of the last observed tick.
    pub fn last(&self) -> &TickMetrics {
        &self.state.last
    }

    /// The summary of everything observed so far.
    pub fn summary(&self, world: &World<V>) -> Summary {
        let mut s = self.state.summary.clone();
        s.time_s = world.time_s();
        s.agents_active = world.agents.len() as u64;
        s.agents_exited = world.exited;
        s.agents_spawned = self.state.spawned;
        s.mean_speed = self.state.last.mean_speed;
        s.polarisation = self.state.last.polarisation;
        let lived = world.next_id.max(1) as f64;
        s.mean_wait_s = self.state.blocked_agent_ticks as f64 * world.dt as f64 / lived;
        let seconds = (self.state.observed_ticks as f64 * world.dt as f64).max(f64::MIN_POSITIVE);
        s.gates = world
            .scene
            .parts()
            .gates
            .iter()
            .zip(self.state.gate_totals.iter().zip(&self.state.gate_spans))
            .map(|(g, (&c, span))| GateSummary {
                name: g.name.clone(),
                crossings: c,
                per_s: c as f64 / seconds,
                flow: c as f64 / seconds / areas::width(g),
                passage_per_s: match *span {
                    Some((first, last)) if last > first && c > 1 => {
                        (c - 1) as f64 / ((last - first) as f64 * world.dt as f64)
                    }
                    _ => 0.0,
                },
            })
            .collect();
        s.areas = world
            .scene
            .parts()
            .measures
            .iter()
            .zip(&self.state.area_totals)
            .map(|(m, t)| t.summary(&m.name))
            .collect();
        s.stages = stages::summary(world, &self.state.last.stages, &self.state.stage_queue_max);
        s.parties = crate::world::any_parties(&world.groups).then(|| self.state.party_totals.summary());
        s.steerbench = self.config.steerbench.then(|| self.state.steerbench.summary(world.dt));
        s
    }

    /// Agents with a goal, not within `goal_radius` of it, that moved less than
    /// `stuck_distance` since the last window boundary.
    fn count_stuck(&self, world: &World<V>) -> u64 {
        let a = &world.agents;
        let t = world.time_s();
        let mut stuck = 0;
        for i in 0..a.len() {
            let id = a.id[i] as usize;
            if !self.state.anchored.get(id).copied().unwrap_or(false) {
                continue;
            }
            let moved = world.bounds.offset(self.state.anchor[id], a.position[i]).length();
            if moved >= self.config.stuck_distance {
                continue;
            }
            if let Some(goal) = goal_of(world, i, t)
                && world.bounds.offset(a.position[i], goal).length() > self.config.goal_radius
            {
                stuck += 1;
            }
        }
        stuck
    }
}

/// Each measurement area's reading now, in `[[measure]]` order (areas are planar: none in
/// space).
fn read_areas<V: Dimension>(world: &World<V>) -> Vec<AreaReading> {
    world.scene.parts().measures.iter().map(|m| areas::read(world, m)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{IndexKind, Pipeline, Scenario};

    /// A collector resumed from a saved state observes the next ticks exactly as the one that
    /// went on; a state that does not fit the world is refused.
    #[test]
    fn a_resumed_collector_goes_on_as_the_original() {
        let text = "version = 1\nname = \"t\"\nseed = 4\ndt = 0.1\nticks = 5\n[bounds]\nmin = [0, 0]\nmax = [12, 12]\n[metrics]\nstuck_window_s = 0.5\n[[groups]]\nname = \"g\"\ncount = 40\nspawn = { kind = \"rect\", min = [0, 0], max = [12, 12] }\nmax_speed = 1.0\nmax_force = 1.0\n[[groups.behaviours]]\nkind = \"arrive\"\ntarget = \"home\"\n[targets.home]\nkind = \"point\"\nposition = [6, 6]\n";
        let scenario = Scenario::parse(text, "t.toml").expect("valid");
        let mut world = scenario.build_world();
        let mut pipeline = Pipeline::new(1, IndexKind::Kd).expect("pool");
        let mut original = MetricsCollector::new(scenario.metrics, &world);
        for _ in 0..7 {
            pipeline.step(&mut world).expect("finite");
            original.observe(&world, pipeline.events(), pipeline.obstacle_index());
        }
        let mut resumed =
            MetricsCollector::resume(scenario.metrics, &world, original.state().clone()).expect("fits");
        for _ in 0..9 {
            pipeline.step(&mut world).expect("finite");
            let a = original.observe(&world, pipeline.events(), pipeline.obstacle_index()).clone();
            assert_eq!(&a, resumed.observe(&world, pipeline.events(), pipeline.obstacle_index()));
        }
        assert_eq!(original.summary(&world), resumed.summary(&world));
        assert_eq!(original.state(), resumed.state());

        let mut gates = original.state().clone();
        gates.gate_totals.push(1);
        assert!(
            MetricsCollector::resume(scenario.metrics, &world, gates)
                .err()
                .expect("refused")
                .to_string()
                .contains("1 gates")
        );
        let mut later = original.state().clone();
        later.last.tick += 1;
        assert!(
            MetricsCollector::resume(scenario.metrics, &world, later)
                .err()
                .expect("refused")
                .to_string()
                .contains("saved at tick 17")
        );
        let mut anchors = original.state().clone();
        anchors.anchored.pop();
        assert!(MetricsCollector::resume(scenario.metrics, &world, anchors).is_err());
    }
}
