//! Validating a group's `parties`: the shares of agents alone, in pairs, in triples... (they
//! add up to 1) and the group force's parameters.

use super::{Rule, Validator};
use crate::scenario::locate::Seg;
use crate::scenario::schema::PartiesToml;
use crate::world::{MAX_PARTY_SIZE, Parties, PartyForce};

/// How far the shares' sum may stray from 1 (a list written to two or three decimals).
const SHARES_SLACK: f32 = 1e-3;

impl<V: crate::world::Dimension> Validator<'_, V> {
    /// Group `g`'s parties, dealt among its `count` agents at spawn.
    pub(super) fn parties(&mut self, g: usize, raw: &PartiesToml, count: u32) -> Option<Parties> {
        use Seg::{Index, Key};
        let at = |k: &'static str| [Key("groups"), Index(g), Key("parties"), Key(k)];
        if raw.shares.is_empty() || raw.shares.len() > MAX_PARTY_SIZE {
            return self.fail(
                &at("shares"),
                format!(
                    "expected 1 to {MAX_PARTY_SIZE} shares (the share of agents alone, in pairs, in triples, ...), found {}",
                    raw.shares.len()
                ),
            );
        }
        for (k, &share) in raw.shares.iter().enumerate() {
            let path = [&at("shares")[..], &[Index(k)]].concat();
            self.num(&path, share, Rule::Between(0.0, 1.0))?;
        }
        let sum: f32 = raw.shares.iter().sum();
        if (sum - 1.0).abs() > SHARES_SLACK {
            let listed =
                raw.shares.iter().map(|s| crate::scenario::shown(*s)).collect::<Vec<_>>().join(" + ");
            return self.fail(
                &at("shares"),
                format!(
                    "the shares add up to {} ({listed}); they must add up to 1: shares[0] is the share of agents who walk alone, shares[1] of those in pairs, shares[2] in triples, and so on",
                    crate::scenario::shown(sum)
                ),
            );
        }
        if count == 0 {
            self.warn(
                &at("shares"),
                "parties are dealt among the group's agents at spawn, and this group has none then: agents that sources, events or a program add walk alone",
            );
        }
        let d = PartyForce::default();
        let mut value = |key: &'static str, raw: Option<f32>, default: f32, rule: Rule| match raw {
            Some(x) => self.num(&at(key), x, rule),
            None => Some(default),
        };
        let force = PartyForce {
            gaze: value("gaze", raw.gaze, d.gaze, Rule::NonNegative(1e3))?,
            attraction: value("attraction", raw.attraction, d.attraction, Rule::NonNegative(1e3))?,
            repulsion: value("repulsion", raw.repulsion, d.repulsion, Rule::NonNegative(1e3))?,
            vision: value("vision_deg", raw.vision_deg, 90.0, Rule::Between(0.0, 180.0))?.to_radians(),
            repulsion_range: value(
                "repulsion_range",
                raw.repulsion_range,
                d.repulsion_range,
                Rule::NonNegative(1e3),
            )?,
            response_s: value("response_s", raw.response_s, d.response_s, Rule::Positive(1e3))?,
        };
        Some(Parties { shares: raw.shares.clone(), force, leave_together: raw.leave_together })
    }
}
