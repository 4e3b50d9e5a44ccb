//! Measurement areas and lines, as a fundamental diagram or a bottleneck test needs them: the
//! live agents inside each `[[measure]]` area (count, density, mean speed) and each gate's flow
//! (crossings per second per unit of its width), per tick and over the run.
//!
//! Deterministic as the other metrics: counts are integers, speeds are summed serially in id
//! order, and the run totals are summed tick by tick.

use serde::{Deserialize, Serialize};

use crate::world::{Dimension, Gate, MeasureArea, World};

/// What one area holds after a tick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AreaReading {
    /// Live agents inside (edges included).
    pub count: u64,
    /// `count` per square world unit.
    pub density: f64,
    /// Mean |v| of the agents inside (units/s); 0 when it is empty.
    pub speed: f64,
}

/// An area over the observed ticks from its `start_s` on (`areas` in the run's summary).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AreaSummary {
    /// The area's `name`.
    pub name: String,
    /// Mean density over the ticks summed (agents per square unit).
    pub density_mean: f64,
    /// Highest density on any observed tick.
    pub density_max: f64,
    /// Mean speed inside over the observed ticks it held agents (units/s; 0 if it never did).
    pub speed_mean: f64,
}

/// What the summary of one area carries from tick to tick.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AreaTotals {
    density_sum: f64,
    density_max: f64,
    speed_sum: f64,
    occupied_ticks: u64,
    /// Ticks summed (observed ones from the area's `start_tick` on).
    ticks: u64,
}

/// Reads `area` in `world`: the agents inside, in id order.
pub fn read<V: Dimension>(world: &World<V>, area: &MeasureArea) -> AreaReading {
    let a = &world.agents;
    let order = a.id_order();
    let rows: Box<dyn Iterator<Item = usize>> = match &order {
        None => Box::new(0..a.len()),
        Some(o) => Box::new(o.iter().map(|&r| r as usize)),
    };
    let (mut count, mut speed_sum) = (0u64, 0.0f64);
    for r in rows {
        if a.position[r].to_plane().is_some_and(|p| area.region.contains(p)) {
            count += 1;
            speed_sum += a.velocity[r].length() as f64;
        }
    }
    AreaReading {
        count,
        density: count as f64 / area.area(),
        speed: if count > 0 { speed_sum / count as f64 } else { 0.0 },
    }
}

/// A gate's flow this tick: its crossings per second per unit of its length.
pub fn flow(gate: &Gate, crossings: u32, dt: f32) -> f64 {
    crossings as f64 / dt as f64 / width(gate)
}

/// A gate's length, the width its flow is per.
pub fn width(gate: &Gate) -> f64 {
    (gate.to - gate.from).length() as f64
}

impl AreaTotals {
    /// Adds a tick's reading.
    pub fn add(&mut self, r: &AreaReading) {
        self.ticks += 1;
        self.density_sum += r.density;
        self.density_max = self.density_max.max(r.density);
        if r.count > 0 {
            self.speed_sum += r.speed;
            self.occupied_ticks += 1;
        }
    }

    /// The summary over the ticks added.
    pub fn summary(&self, name: &str) -> AreaSummary {
        AreaSummary {
            name: name.to_string(),
            density_mean: self.density_sum / self.ticks.max(1) as f64,
            density_max: self.density_max,
            speed_mean: if self.occupied_ticks > 0 {
                self.speed_sum / self.occupied_ticks as f64
            } else {
                0.0
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec2;
    use crate::world::Region;

    #[test]
    fn flow_is_per_second_per_unit_width() {
        let gate = Gate { name: "g".into(), from: Vec2::new(0.0, 0.0), to: Vec2::new(0.0, 4.0), open: true };
        // 3 crossings in a 0.5 s tick over 4 units: 3 / 0.5 / 4 = 1.5 per s per unit.
        assert_eq!(flow(&gate, 3, 0.5), 1.5);
    }

    #[test]
    fn totals_average_over_ticks_and_speed_over_occupied_ticks() {
        let mut t = AreaTotals::default();
        t.add(&AreaReading { count: 2, density: 0.5, speed: 1.0 });
        t.add(&AreaReading { count: 0, density: 0.0, speed: 0.0 });
        t.add(&AreaReading { count: 4, density: 1.0, speed: 2.0 });
        let s = t.summary("a");
        assert_eq!((s.density_mean, s.density_max, s.speed_mean), (0.5, 1.0, 1.5));
        let disc = MeasureArea {
            name: "d".into(),
            region: Region::Circle { centre: Vec2::ZERO, radius: 2.0 },
            start_tick: 0,
        };
        assert!((disc.area() - 4.0 * std::f64::consts::PI).abs() < 1e-12);
    }
}
