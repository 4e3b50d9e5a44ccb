//! Following a run for its expectations: what each has seen so far ([`WatchState`], carried
//! by checkpoints) and the verdicts at the end.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::group_stats;
use super::outcome::{Outcome, Status};
use crate::math::Vec2;
use crate::metrics::{Summary, TICK_METRICS, TickMetrics};
use crate::scenario::expectation::{
    Check, Expectation, Metric, SceneNames, StageValue, Subject, Who, describe, number, seconds,
};
use crate::world::{Dimension, Region, Scene, World};

/// What one expectation has seen so far.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ItemState {
    /// The value at the last observed tick (`end`), or at the tick asked for (`at`).
    pub last: Option<(u64, f64)>,
    /// `always`: the first tick out of bounds; `ever` and `first`: the first tick within.
    pub found: Option<(u64, f64)>,
    /// `always`, `ever`, `first`: the lowest and highest values read (first tick of each), to
    /// say how near a check came.
    pub lowest: Option<(u64, f64)>,
    /// See `lowest`.
    pub highest: Option<(u64, f64)>,
    /// `reach`: the agents followed, and those seen inside the region by the deadline.
    pub members: BTreeSet<u32>,
    /// See `members`.
    pub arrived: BTreeSet<u32>,
}

/// What a [`Watcher`] carries from tick to tick; checkpoints hold it, so a resumed run is
/// judged as the uninterrupted one would be.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WatchState {
    /// The last tick observed.
    pub last_tick: Option<u64>,
    /// One per expectation, in file order.
    pub items: Vec<ItemState>,
}

/// A saved watch state that does not fit the scenario or world it is to go on with.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WatchStateError {
    /// Another number of expectations.
    #[error("the expectations' state has {saved} entries, the scenario {scenario} expectations")]
    Count {
        /// Entries saved.
        saved: usize,
        /// Expectations in the scenario.
        scenario: usize,
    },
    /// Saved at another tick than the world's.
    #[error("the expectations' state was saved at tick {saved:?}, the world is at tick {world}")]
    Tick {
        /// The tick saved.
        saved: Option<u64>,
        /// The world's tick.
        world: u64,
    },
}

/// Watches a run for a scenario's expectations.
#[derive(Clone, Debug)]
pub struct Watcher<V = Vec2> {
    list: Vec<Expectation<V>>,
    state: WatchState,
}

impl<V: Dimension> Watcher<V> {
    /// A watcher that has seen nothing yet.
    pub fn new(list: Vec<Expectation<V>>) -> Watcher<V> {
        let items = vec![ItemState::default(); list.len()];
        Watcher { list, state: WatchState { last_tick: None, items } }
    }

    /// Goes on from a saved state, which must be for these expectations and this world's tick.
    pub fn resume(
        list: Vec<Expectation<V>>,
        state: WatchState,
        world: &World<V>,
    ) -> Result<Watcher<V>, WatchStateError> {
        if state.items.len() != list.len() {
            return Err(WatchStateError::Count { saved: state.items.len(), scenario: list.len() });
        }
        if state.last_tick.is_some_and(|t| t != world.tick) {
            return Err(WatchStateError::Tick { saved: state.last_tick, world: world.tick });
        }
        Ok(Watcher { list, state })
    }

    /// The expectations watched.
    pub fn expectations(&self) -> &[Expectation<V>] {
        &self.list
    }

    /// What has been seen so far.
    pub fn state(&self) -> &WatchState {
        &self.state
    }

    /// Observes the state after a tick (or the first state, tick 0) with its metrics;
    /// `gate_totals` are each gate's crossings so far.
    pub fn observe(&mut self, world: &World<V>, metrics: &TickMetrics, gate_totals: &[u64]) {
        let tick = world.tick;
        self.state.last_tick = Some(tick);
        for (e, item) in self.list.iter().zip(&mut self.state.items) {
            if let Check::Reach { who, region, before } = &e.check {
                if tick <= *before {
                    follow(world, *who, region, item);
                }
                continue;
            }
            // Read only when this tick can matter to the check.
            let wanted = match e.check {
                Check::End => !matches!(e.subject, Subject::InRegion { .. }),
                Check::At { tick: at } => tick == at,
                Check::Always { from, to } => (from..=to).contains(&tick) && item.found.is_none(),
                Check::Ever { from, to } => (from..=to).contains(&tick) && item.found.is_none(),
                Check::First { .. } => item.found.is_none(),
                Check::Reach { .. } => false,
            };
            if !wanted {
                continue;
            }
            let Some(value) = read(&e.subject, world, metrics, gate_totals) else { continue };
            if !matches!(e.check, Check::End | Check::At { .. }) {
                if item.lowest.is_none_or(|(_, lo)| value < lo) {
                    item.lowest = Some((tick, value));
                }
                if item.highest.is_none_or(|(_, hi)| value > hi) {
                    item.highest = Some((tick, value));
                }
            }
            match e.check {
                Check::End | Check::At { .. } => item.last = Some((tick, value)),
                Check::Always { .. } => {
                    item.last = Some((tick, value));
                    if !e.holds(value) {
                        item.found = Some((tick, value));
                    }
                }
                Check::Ever { .. } | Check::First { .. } => {
                    item.last = Some((tick, value));
                    if e.holds(value) {
                        item.found = Some((tick, value));
                    }
                }
                Check::Reach { .. } => {}
            }
        }
    }

    /// The verdicts on the run so far, `world` being its last state and `summary` its metrics
    /// summary.
    pub fn outcomes(&self, world: &World<V>, summary: &Summary) -> Vec<Outcome> {
        let scene = world.scene.parts();
        let gates: Vec<&str> = scene.gates.iter().map(|g| g.name.as_str()).collect();
        let groups: Vec<&str> = world.groups.iter().map(|g| g.name.as_str()).collect();
        let areas: Vec<&str> = scene.measures.iter().map(|m| m.name.as_str()).collect();
        let stages: Vec<&str> = scene.stages.iter().map(|s| s.name.as_str()).collect();
        let parties = crate::world::any_parties(&world.groups);
        let names = SceneNames { gates: &gates, groups: &groups, areas: &areas, stages: &stages, parties };
        let dt = world.dt as f64;
        let at = |tick: u64| tick as f64 * dt;
        let end = world.tick;
        self.list
            .iter()
            .zip(&self.state.items)
            .map(|(e, item)| {
                let what = describe(e, &names, dt);
                let (status, value, time_s, detail) = match &e.check {
                    Check::End => {
                        let value = match &e.subject {
                            Subject::Metric(m) if m.summary_only() => summary_value(m, summary),
                            Subject::Difference { metric, minus } if metric.summary_only() => {
                                summary_value(metric, summary)
                                    .zip(summary_value(minus, summary))
                                    .map(|(a, b)| a - b)
                            }
                            Subject::InRegion { region, group } => {
                                Some(world.count_in(region, *group) as f64)
                            }
                            _ => item.last.map(|(_, v)| v),
                        };
                        match value {
                            Some(v) => {
                                (pass(e.holds(v)), Some(v), Some(at(end)), format!("was {}", number(v)))
                            }
                            None => (Status::Unchecked, None, None, "no value was observed".into()),
                        }
                    }
                    Check::At { tick } => match item.last {
                        Some((t, v)) if t == *tick => {
                            (pass(e.holds(v)), Some(v), Some(at(t)), format!("was {}", number(v)))
                        }
                        _ => {
                            (Status::Unchecked, None, None, format!("the run ended at {}", seconds(at(end))))
                        }
                    },
                    // `always` records the first tick out of bounds, `ever` the first within.
                    Check::Always { to, .. } | Check::Ever { to, .. } => {
                        let always = matches!(e.check, Check::Always { .. });
                        match item.found {
                            Some((t, v)) => (
                                if always { Status::Fail } else { Status::Pass },
                                Some(v),
                                Some(at(t)),
                                format!("was {} at {}", number(v), seconds(at(t))),
                            ),
                            None if *to != u64::MAX && end < *to => (
                                Status::Unchecked,
                                None,
                                None,
                                format!("the run ended at {}, before the window did", seconds(at(end))),
                            ),
                            None if always => (
                                Status::Pass,
                                None,
                                None,
                                format!("held at every tick; {}", extremes(e, item, dt)),
                            ),
                            None => (Status::Fail, None, None, format!("never; {}", extremes(e, item, dt))),
                        }
                    }
                    Check::First { after, before } => match item.found {
                        Some((t, _)) => {
                            let ok = t >= *after && t <= *before;
                            (pass(ok), Some(at(t)), Some(at(t)), format!("first at {}", seconds(at(t))))
                        }
                        None if *before != u64::MAX && end < *before => (
                            Status::Unchecked,
                            None,
                            None,
                            format!("not yet when the run ended at {}", seconds(at(end))),
                        ),
                        None => (Status::Fail, None, None, format!("never; {}", extremes(e, item, dt))),
                    },
                    Check::Reach { before, .. } => {
                        let missing: Vec<u32> = item.members.difference(&item.arrived).copied().collect();
                        let n = item.members.len();
                        if n == 0 {
                            (Status::Fail, Some(0.0), None, "no agent to follow was seen".into())
                        } else if missing.is_empty() {
                            (Status::Pass, Some(n as f64), None, format!("{n} of {n} arrived"))
                        } else if end < *before {
                            (
                                Status::Unchecked,
                                Some((n - missing.len()) as f64),
                                None,
                                format!(
                                    "{} of {n} arrived when the run ended at {}",
                                    n - missing.len(),
                                    seconds(at(end))
                                ),
                            )
                        } else {
                            (
                                Status::Fail,
                                Some((n - missing.len()) as f64),
                                None,
                                format!("{} of {n} arrived; agent {} did not", n - missing.len(), missing[0]),
                            )
                        }
                    }
                };
                Outcome { name: e.name.clone(), what, status, value, time_s, detail }
            })
            .collect()
    }
}

fn pass(ok: bool) -> Status {
    if ok { Status::Pass } else { Status::Fail }
}

/// The extremes read that matter to the bounds: for `always`, how near the values came to
/// leaving them (the lowest against a lower bound, the highest against an upper one); for
/// `ever` and `first`, how near they came to entering them (the other way round).
fn extremes<V>(e: &Expectation<V>, item: &ItemState, dt: f64) -> String {
    let show = |what: &str, v: Option<(u64, f64)>| {
        v.map(|(t, v)| format!("{what} {} at {}", number(v), seconds(t as f64 * dt)))
    };
    let leaving = matches!(e.check, Check::Always { .. });
    let (against_min, against_max) = if leaving {
        (show("lowest", item.lowest), show("highest", item.highest))
    } else {
        (show("highest", item.highest), show("lowest", item.lowest))
    };
    let parts: Vec<String> = [e.min.and(against_min), e.max.and(against_max)].into_iter().flatten().collect();
    if parts.is_empty() { "no value was read".into() } else { parts.join(", ") }
}

/// The subject's value after this tick; `None` for a summary-only metric or no subject.
fn read<V: Dimension>(
    subject: &Subject<V>,
    world: &World<V>,
    metrics: &TickMetrics,
    gate_totals: &[u64],
) -> Option<f64> {
    let metric = |m: &Metric| match m {
        Metric::GroupSpeed(..) | Metric::GroupMaxSpeed(..) | Metric::GroupTargetDistance(..) => {
            group_stats::read(m, world)
        }
        _ => of_tick(m, metrics, gate_totals),
    };
    match subject {
        Subject::Metric(m) => metric(m),
        Subject::Difference { metric: a, minus: b } => Some(metric(a)? - metric(b)?),
        Subject::InRegion { region, group } => Some(world.count_in(region, *group) as f64),
        Subject::None => None,
    }
}

/// A per-tick metric's value in a tick's metrics; `gate_totals` are each gate's crossings so
/// far. `None` for a summary-only metric.
fn of_tick(m: &Metric, t: &TickMetrics, gate_totals: &[u64]) -> Option<f64> {
    Some(match m {
        Metric::Tick(i) => (TICK_METRICS.get(*i)?.tick)(t).as_f64(),
        Metric::GateCrossings(i) => *gate_totals.get(*i)? as f64,
        Metric::GateFlow(i) => *t.gate_flow.get(*i)?,
        Metric::AreaCount(i) => t.areas.get(*i)?.count as f64,
        Metric::AreaDensity(i) => t.areas.get(*i)?.density,
        Metric::AreaSpeed(i) => t.areas.get(*i)?.speed,
        Metric::Stage(i, what) => {
            let s = t.stages.get(*i)?;
            match what {
                StageValue::Agents => s.agents as f64,
                StageValue::Queue => s.queue as f64,
                StageValue::Finished => s.finished as f64,
                StageValue::MeanTime => s.mean_s,
            }
        }
        Metric::Party(what) => what.of(t.parties.as_ref()?),
        Metric::MeanWait
        | Metric::QueueLengthMax
        | Metric::GatePerSecond(_)
        | Metric::GatePassage(_)
        | Metric::SteerBenchCollisions
        | Metric::SteerBenchTime
        | Metric::SteerBenchEnergy
        | Metric::SteerBenchScore
        | Metric::GroupSpeed(..)
        | Metric::GroupMaxSpeed(..)
        | Metric::GroupTargetDistance(..) => return None,
    })
}

/// A summary-only metric's value.
fn summary_value(m: &Metric, s: &Summary) -> Option<f64> {
    match m {
        Metric::MeanWait => Some(s.mean_wait_s),
        Metric::QueueLengthMax => Some(s.queue_length_max as f64),
        Metric::GatePerSecond(i) => s.gates.get(*i).map(|g| g.per_s),
        Metric::GatePassage(i) => s.gates.get(*i).map(|g| g.passage_per_s),
        Metric::SteerBenchCollisions => s.steerbench.as_ref().map(|b| b.collisions),
        Metric::SteerBenchTime => s.steerbench.as_ref().map(|b| b.time_s),
        Metric::SteerBenchEnergy => s.steerbench.as_ref().map(|b| b.energy),
        Metric::SteerBenchScore => s.steerbench.as_ref().map(|b| b.score),
        _ => None,
    }
}

/// Records who is followed and who is inside the region now.
fn follow<V: Dimension>(world: &World<V>, who: Who, region: &Region<V>, item: &mut ItemState) {
    let a = &world.agents;
    for ((id, g), p) in a.id.iter().zip(&a.group).zip(&a.position) {
        let followed = match who {
            Who::Agent(want) => *id == want,
            Who::Group(want) => *g == want,
        };
        if followed {
            item.members.insert(*id);
            if region.contains(*p) {
                item.arrived.insert(*id);
            }
        }
    }
}
