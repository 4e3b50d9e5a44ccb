//! `MetricsStateError`: a saved metrics state (a checkpoint's) that does not fit the world it
//! is to go on with.

/// A saved metrics state that does not fit the world it is to go on with.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MetricsStateError {
    /// Anchors and their flags disagree, or cover more agents than the world has issued ids.
    #[error("the metrics state anchors {anchors} agents ({flags} flags), the world has issued {ids} ids")]
    Anchors {
        /// Anchored positions saved.
        anchors: usize,
        /// Anchor flags saved.
        flags: usize,
        /// Ids the world has issued.
        ids: usize,
    },
    /// Another number of gates.
    #[error("the metrics state counts {saved} gates, the scenario has {scenario}")]
    Gates {
        /// Gates in the state.
        saved: usize,
        /// Gates in the scenario.
        scenario: usize,
    },
    /// Another number of measurement areas.
    #[error("the metrics state measures {saved} areas, the scenario has {scenario}")]
    Areas {
        /// Areas in the state.
        saved: usize,
        /// Areas in the scenario.
        scenario: usize,
    },
    /// Another number of journey stages.
    #[error("the metrics state follows {saved} journey stages, the scenario has {scenario}")]
    Stages {
        /// Stages in the state.
        saved: usize,
        /// Stages in the scenario.
        scenario: usize,
    },
    /// Saved at another tick than the world's.
    #[error(
        "the metrics state was saved at tick {saved} ({observed} observed), the world is at tick {world}"
    )]
    Tick {
        /// The tick the state was saved at.
        saved: u64,
        /// Ticks it had observed.
        observed: u64,
        /// The world's tick.
        world: u64,
    },
}
