//! Validating `[[measure]]` entries: an area (a region the metrics read density and speed in)
//! or a line (counted as a gate, which reports its flow).

use super::Validator;
use crate::scenario::locate::Seg;
use crate::scenario::schema::MeasureToml;
use crate::world::{Gate, MeasureArea};

impl<V: crate::world::Dimension> Validator<'_, V> {
    /// The measurement areas; lines are appended to `gates` (a measurement line is a gate).
    pub(super) fn measures(
        &mut self,
        raw: &[MeasureToml],
        gates: &mut Vec<Gate>,
        dt: f32,
    ) -> Option<Vec<MeasureArea>> {
        use Seg::{Index, Key};
        let mut areas: Vec<MeasureArea> = Vec::new();
        for (i, m) in raw.iter().enumerate() {
            let base = [Key("measure"), Index(i)];
            let at = |k: &'static str| [Key("measure"), Index(i), Key(k)];
            if m.name.trim().is_empty() {
                return self.fail(&at("name"), "expected a non-empty name");
            }
            if raw[..i].iter().any(|o| o.name == m.name) {
                return self.fail(&at("name"), format!("measure name \"{}\" is used twice", m.name));
            }
            let kind = self.choice(&at("kind"), &m.kind, &[("rect", 0), ("circle", 1), ("line", 2)])?;
            if kind == 2 {
                let present = [
                    ("min", m.min.is_some()),
                    ("max", m.max.is_some()),
                    ("centre", m.centre.is_some()),
                    ("radius", m.radius.is_some()),
                    ("start_s", m.start_s.is_some()),
                ];
                self.only_allowed(&base, &present, &["from", "to"], "a \"line\" measure")?;
                let (Some(from), Some(to)) = (m.from, m.to) else {
                    let key = if m.from.is_none() { "from" } else { "to" };
                    return self.fail(&base, format!("missing key `{key}` for a \"line\" measure"));
                };
                let from = self.plane_point(&at("from"), from)?;
                let to = self.plane_point(&at("to"), to)?;
                if from == to {
                    return self.fail(&at("to"), "a line needs two different end points");
                }
                if gates.iter().any(|g| g.name == m.name) {
                    return self.fail(
                        &at("name"),
                        format!(
                            "\"{}\" is already a gate's name: a measurement line is counted as a gate",
                            m.name
                        ),
                    );
                }
                gates.push(Gate { name: m.name.clone(), from, to, open: true });
                continue;
            }
            let lines = [("from", m.from.is_some()), ("to", m.to.is_some())];
            if let Some((key, _)) = lines.iter().find(|(_, is)| *is) {
                return self.fail(
                    &at(key),
                    format!(
                        "`{key}` is not a parameter of a \"{}\" measure (it takes its region's keys)",
                        m.kind
                    ),
                );
            }
            let region = self.plane_region(&base, region_keys!(m), "measure")?;
            let start_tick = match m.start_s {
                None => 0,
                Some(t) if t.is_finite() && (0.0..=1e9).contains(&t) => {
                    crate::scenario::expectation::tick_at(t, dt)
                }
                Some(t) => {
                    return self
                        .fail(&at("start_s"), format!("expected a time from 0 to 1e9 seconds, found {t}"));
                }
            };
            areas.push(MeasureArea { name: m.name.clone(), region, start_tick });
        }
        Some(areas)
    }
}
