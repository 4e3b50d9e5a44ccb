//! SIGINT and SIGTERM during a run or a benchmark: caught between ticks, so the command stops
//! with its output files flushed and closed (every row whole) and exits 130 or 143, as a
//! shell expects.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A signal that stopped the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    Interrupt,
    Terminate,
}

impl Stop {
    /// The exit code a shell gives a process killed by the signal: 128 + its number.
    pub fn exit_code(self) -> u8 {
        match self {
            Stop::Interrupt => 130,
            Stop::Terminate => 143,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Stop::Interrupt => "SIGINT",
            Stop::Terminate => "SIGTERM",
        }
    }
}

/// Flags the signal handlers set; the run checks them after every tick.
pub struct Interrupts {
    int: Arc<AtomicBool>,
    term: Arc<AtomicBool>,
}

impl Interrupts {
    /// Catches SIGINT and SIGTERM from now on (on other platforms, nothing is caught).
    pub fn catch() -> Interrupts {
        let (int, term) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
        #[cfg(unix)]
        {
            // Registration fails only for signals that cannot be caught; these two can.
            let _ = signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&int));
            let _ = signal_hook::flag::register(signal_hook::consts::SIGTERM, Arc::clone(&term));
        }
        Interrupts { int, term }
    }

    /// The signal caught since [`Interrupts::catch`], if any (SIGTERM first).
    pub fn caught(&self) -> Option<Stop> {
        if self.term.load(Ordering::Relaxed) {
            Some(Stop::Terminate)
        } else if self.int.load(Ordering::Relaxed) {
            Some(Stop::Interrupt)
        } else {
            None
        }
    }
}
