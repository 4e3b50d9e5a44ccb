//! `Pass`: the passes of a tick, in run order. This list is the only place the order is
//! written: names, timers, the per-pass tables of `throng run` and `throng bench`, and the
//! golden report's "first diverging pass" all derive from it.

/// Declares `Pass` with its variants in run order, their names, and `Pass::ALL`.
macro_rules! passes {
    ($($(#[$doc:meta])* $variant:ident => $name:literal,)+) => {
        /// One pass of a tick. The declaration order is the run order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Pass {
            $($(#[$doc])* $variant,)+
        }

        impl Pass {
            /// Every pass, in run order.
            pub const ALL: &'static [Pass] = &[$(Pass::$variant,)+];

            /// The pass's name, as timers, reports and golden files give it.
            pub fn name(self) -> &'static str {
                match self {
                    $(Pass::$variant => $name,)+
                }
            }
        }
    };
}

passes! {
    /// The scenario's `[[events]]` due now, on the state the last tick left, before anything
    /// else (`passes::events`); a `stop` ends the run here.
    Events => "events",
    /// Whether sensing is due this tick or the last candidates still hold
    /// (`index::SensingCache`).
    SensingDue => "sensing_due",
    /// Rows in spatial order, at most every `reorder_every` ticks (`passes::reorder`).
    Reorder => "reorder",
    /// The agents' k-d trees or grid, and the obstacle index (`passes::build_index`).
    BuildIndex => "build_index",
    /// Each avoiding agent's most threatening obstacle, beside `build_index`
    /// (`passes::find_threats`).
    FindThreats => "find_threats",
    /// Each agent's unit heading, which `steer` reads, beside `build_index`
    /// (`passes::headings`).
    Headings => "headings",
    /// Neighbour lists (`passes::sense_neighbours`).
    SenseNeighbours => "sense_neighbours",
    /// Weighted behaviour forces (`passes::steer`).
    Steer => "steer",
    /// Braking behind a blocker (`passes::queue_brake`).
    QueueBrake => "queue_brake",
    /// Party members add the group force that keeps them together (`passes::parties`).
    Parties => "parties",
    /// Agents of groups with a velocity model (ORCA) choose their velocity
    /// (`passes::velocity_models`).
    Models => "models",
    /// The Euler step (`passes::integrate`).
    Integrate => "integrate",
    /// Solid obstacles push bodies out (`passes::collide`).
    Collide => "collide",
    /// Gate crossings counted (`passes::gates`).
    Gates => "gates",
    /// Agents done with their journey's stage choose the next (`passes::journeys`).
    Journeys => "journeys",
    /// Agents inside an exit leave (`passes::exits`).
    Exits => "exits",
    /// Spawn sources add agents (`passes::spawns`).
    Spawns => "spawns",
    /// Waiting areas take in the agents that arrived (`passes::wait`).
    Wait => "wait",
}

impl Pass {
    /// The pass called `name`, if any.
    pub fn from_name(name: &str) -> Option<Pass> {
        Pass::ALL.iter().copied().find(|p| p.name() == name)
    }
}

impl std::fmt::Display for Pass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
