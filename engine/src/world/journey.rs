//! Journeys (`[[stages]]`, `[[journeys]]`): the stages agents walk to in turn (waypoints, exits,
//! waiting areas, queues) and, after each stage, the rule that chooses the next one (fixed, weighted
//! round robin, least targeted, nearest, weighted random). Definitions and their state (the
//! round robins' turns, the visits each stage finished) live in the world, so checkpoints carry
//! them; each agent's journey, stage and the tick it chose that stage are agent columns.

use serde::{Deserialize, Serialize};

use crate::math::Vec2;

/// The `journey` column of an agent on no journey.
pub const NO_JOURNEY: u16 = u16::MAX;

/// The `stage_from` column's value for an agent at its journey's start.
pub const NO_STAGE: u16 = u16::MAX;

/// What a stage is, and when an agent has done with it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum StageKind {
    /// A point: done once the agent's centre is within `radius` of `position`.
    Waypoint {
        /// Where (world units).
        position: Vec2,
        /// How near counts as reached (world units, > 0).
        radius: f32,
    },
    /// An exit (its index in `PlaneScene::exits`): the agent leaves the world there. A journey
    /// ends at an exit; an agent on a journey leaves by no other exit.
    Exit(u32),
    /// A waiting area (its index in `PlaneScene::waiting`): the area holds the agent once it is
    /// inside, and the stage is done when an event releases it.
    Waiting(u32),
    /// A queue ([`Stage::queue`]): the agent takes the next slot, closes up as those ahead
    /// leave, and the stage is done when the head is released.
    Queue,
}

/// A queue's slots and rules, and who stands in it (state).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Queue {
    /// The slots, the head's first (world units). Agents beyond the last slot wait at it.
    pub slots: Vec<Vec2>,
    /// An agent within this distance of its slot stands there, still (world units, > 0).
    pub radius: f32,
    /// Ticks the head spends at the head slot before it goes on (the service time; 0: none,
    /// only events or `room` release it).
    pub service_ticks: u64,
    /// With `room` > 0, the head goes on as soon as fewer than `room` agents are heading to
    /// the stages its transition leads to (0: no such rule).
    pub room: u32,
    /// The agents in the queue (state), in the order they joined: the head first.
    pub queued: Vec<u32>,
    /// The agents released from its head (state), who move on at the end of the tick.
    pub released: Vec<u32>,
    /// The tick the head reached the head slot at, while it stands there (state).
    pub head_since: Option<u64>,
}

impl Queue {
    /// The slot of the agent `place` places behind the head (the last for those beyond it).
    pub fn slot(&self, place: usize) -> Vec2 {
        self.slots[place.min(self.slots.len() - 1)]
    }

    /// Releases the `count` agents at the head (all with `None`); returns how many.
    pub fn release(&mut self, count: Option<u32>) -> u32 {
        let n = count.map_or(self.queued.len(), |c| (c as usize).min(self.queued.len()));
        self.released.extend(self.queued.drain(..n));
        self.head_since = None;
        n as u32
    }
}

/// A stage of journeys, with what its visits took (state).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stage {
    /// The entry's `name`, unique among stages.
    pub name: String,
    /// What it is.
    pub kind: StageKind,
    /// Where agents heading to it walk (and where its distance field leads): the waypoint's
    /// position, or the centre of the exit's or waiting area's region.
    pub point: Vec2,
    /// Visits finished so far (state): agents that reached the waypoint, were released by the
    /// waiting area, or left by the exit.
    pub finished: u64,
    /// Ticks those visits took, each from the tick the agent chose the stage to the tick it
    /// finished it (state).
    pub finished_ticks: u64,
    /// A queue stage's slots, rules and line (`None` for the other kinds).
    pub queue: Option<Queue>,
    /// Closed by a `close` event (state): no transition chooses it while another of its stages
    /// is open, and agents heading to a closed waypoint choose again. (An exit stage closes
    /// with its exit.)
    pub closed: bool,
}

impl Stage {
    /// A stage of `kind` at `point` that no one has visited yet (no queue).
    pub fn new(name: &str, kind: StageKind, point: Vec2) -> Stage {
        Stage { name: name.into(), kind, point, finished: 0, finished_ticks: 0, queue: None, closed: false }
    }

    /// Where an agent heading to it walks: its point, or for a queue the slot of its place
    /// (`place`: how many stand ahead of it).
    pub fn goal(&self, place: usize) -> Vec2 {
        self.queue.as_ref().map_or(self.point, |q| q.slot(place))
    }
}

/// How a transition chooses among its stages (`choose` in a scenario).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Choice {
    /// Always its one stage (`"fixed"`).
    Fixed,
    /// In turn: the first stage for its weight's worth of agents, then the second, and so on
    /// round (`"round_robin"`; whole-number weights, default 1 each).
    RoundRobin {
        /// Agents sent to each stage per round.
        weights: Vec<u32>,
    },
    /// The stage the fewest agents are heading to now (`"least_targeted"`); ties go to the
    /// first listed.
    LeastTargeted,
    /// The stage with the shortest walk from where the agent stands (`"nearest"`: down the
    /// stage's distance field when it has one, else straight); ties go to the first listed.
    Nearest,
    /// A draw from the agent's generator, each stage with probability in proportion to its
    /// weight (`"random"`; default 1 each).
    Random {
        /// Relative weights (each ≥ 0, not all 0).
        weights: Vec<f32>,
    },
}

/// What comes after one stage of a journey.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Transition {
    /// The stage it leaves (an index into the stages).
    pub from: u16,
    /// How it chooses.
    pub choice: Choice,
    /// The stages it chooses among (indices; one for `Fixed`).
    pub to: Vec<u16>,
    /// Agents it has sent on so far (state): a round robin's turn is this count modulo its
    /// round.
    pub sent: u64,
}

/// A journey: the stage its agents start at and what follows each stage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Journey {
    /// The entry's `name`, unique among journeys.
    pub name: String,
    /// The first stage (an index into the stages).
    pub start: u16,
    /// One per stage that has a next one, in file order.
    pub transitions: Vec<Transition>,
}

impl Journey {
    /// The transition out of `stage`, if the journey has one.
    pub fn after(&self, stage: u16) -> Option<usize> {
        self.transitions.iter().position(|t| t.from == stage)
    }
}

/// What a choice reads about the candidate stages for one agent.
pub struct Candidates<'a> {
    /// Whether each stage (by index) is open now: a closed exit is not chosen while another
    /// stage is open.
    pub open: &'a dyn Fn(u16) -> bool,
    /// Agents heading to each stage now (by index).
    pub heading: &'a [u64],
    /// The agent's walk to each stage (by index).
    pub walk: &'a dyn Fn(u16) -> f32,
    /// A uniform draw in [0, 1), for `Random`.
    pub draw: &'a mut dyn FnMut() -> f32,
}

impl Transition {
    /// The next stage for one agent, counted in `sent` (a round robin's turn). Only open
    /// stages are chosen; when none is open, every one is a candidate.
    pub fn choose(&mut self, c: Candidates<'_>) -> u16 {
        let next = self.next(c);
        self.sent += 1;
        next
    }

    fn next(&self, c: Candidates<'_>) -> u16 {
        let any_open = self.to.iter().any(|&s| (c.open)(s));
        let candidate = |s: u16| !any_open || (c.open)(s);
        let first_least = |key: &dyn Fn(u16) -> f32| {
            let mut best: Option<(u16, f32)> = None;
            for &s in self.to.iter().filter(|&&s| candidate(s)) {
                let k = key(s);
                if best.is_none_or(|(_, b)| k < b) {
                    best = Some((s, k));
                }
            }
            best.map_or(self.to[0], |(s, _)| s)
        };
        match &self.choice {
            Choice::Fixed => self.to[0],
            Choice::LeastTargeted => first_least(&|s| c.heading[s as usize] as f32),
            Choice::Nearest => first_least(&|s| (c.walk)(s)),
            Choice::RoundRobin { weights } => {
                let round: u64 = self.pick(weights, &candidate).map(|(_, w)| *w as u64).sum();
                let mut turn = self.sent % round.max(1);
                for (s, &w) in self.pick(weights, &candidate) {
                    if turn < w as u64 {
                        return s;
                    }
                    turn -= w as u64;
                }
                self.to[0]
            }
            Choice::Random { weights } => {
                let total: f64 = self.pick(weights, &candidate).map(|(_, &w)| w as f64).sum();
                let mut left = (c.draw)() as f64 * total;
                let mut last = self.to[0];
                for (s, &w) in self.pick(weights, &candidate) {
                    if w > 0.0 {
                        last = s;
                        if left < w as f64 {
                            return s;
                        }
                        left -= w as f64;
                    }
                }
                last
            }
        }
    }

    /// The candidate stages with their weights, in listed order.
    fn pick<'w, W>(
        &'w self,
        weights: &'w [W],
        candidate: &'w dyn Fn(u16) -> bool,
    ) -> impl Iterator<Item = (u16, &'w W)> + 'w {
        self.to.iter().copied().zip(weights).filter(move |(s, _)| candidate(*s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transition(choice: Choice, to: &[u16]) -> Transition {
        Transition { from: 0, choice, to: to.to_vec(), sent: 0 }
    }

    /// Chooses `n` times with the stages open per `open`, `heading` counts, walks and draws.
    fn choose_n(t: &mut Transition, n: usize, open: &dyn Fn(u16) -> bool, heading: &[u64]) -> Vec<u16> {
        let walk = |s: u16| [9.0, 4.0, 4.0, 1.0][s as usize];
        let mut draws = [0.1f32, 0.5, 0.9, 0.0].into_iter().cycle();
        let mut draw = || draws.next().expect("cycles");
        (0..n).map(|_| t.choose(Candidates { open, heading, walk: &walk, draw: &mut draw })).collect()
    }

    #[test]
    fn a_weighted_round_robin_sends_each_stage_its_weight_per_round() {
        let mut t = transition(Choice::RoundRobin { weights: vec![2, 1, 3] }, &[1, 2, 3]);
        let all = |_: u16| true;
        assert_eq!(choose_n(&mut t, 12, &all, &[0; 4]), [1, 1, 2, 3, 3, 3, 1, 1, 2, 3, 3, 3]);
        // Stage 2 closed: rounds of 2 + 3 over the open two, going on from the turn reached.
        let mut t = transition(Choice::RoundRobin { weights: vec![2, 1, 3] }, &[1, 2, 3]);
        let not_2 = |s: u16| s != 2;
        assert_eq!(choose_n(&mut t, 5, &not_2, &[0; 4]), [1, 1, 3, 3, 3]);
    }

    #[test]
    fn least_targeted_and_nearest_take_the_first_of_equals() {
        let all = |_: u16| true;
        let mut t = transition(Choice::LeastTargeted, &[1, 2, 3]);
        assert_eq!(choose_n(&mut t, 1, &all, &[0, 5, 2, 2]), [2]);
        assert_eq!(choose_n(&mut t, 1, &all, &[0, 5, 7, 2]), [3]);
        // The least targeted closed: the least of the open ones.
        assert_eq!(choose_n(&mut t, 1, &|s| s != 2, &[0, 5, 2, 3]), [3]);
        // Walks 9, 4, 4, 1 to stages 0..3: stages 1 and 2 tie, the first listed wins.
        let mut t = transition(Choice::Nearest, &[0, 2, 1]);
        assert_eq!(choose_n(&mut t, 1, &all, &[0; 4]), [2]);
        // Every stage closed: chosen as if all were open.
        assert_eq!(choose_n(&mut t, 1, &|_| false, &[0; 4]), [2]);
    }

    #[test]
    fn a_weighted_random_choice_splits_the_unit_interval_by_weight() {
        // Weights 1, 3 of 4: draws below 0.25 go to the first. Draws 0.1, 0.5, 0.9, 0.0.
        let mut t = transition(Choice::Random { weights: vec![1.0, 3.0] }, &[1, 2]);
        assert_eq!(choose_n(&mut t, 4, &|_| true, &[0; 4]), [1, 2, 2, 1]);
        // A weight of 0 is never chosen, even by a draw of 0.
        let mut t = transition(Choice::Random { weights: vec![0.0, 1.0] }, &[1, 2]);
        assert_eq!(choose_n(&mut t, 4, &|_| true, &[0; 4]), [2, 2, 2, 2]);
        assert_eq!(t.sent, 4, "every agent sent on is counted");
    }
}
