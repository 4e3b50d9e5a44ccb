//! What a scenario's dimension asks of the validator: `dimensions` is 2 or 3 and matches the
//! reader, a scenario in space has none of the planar parts, and the planar parts see the
//! bounds from above.

use super::Validator;
use crate::math::{Vec2, Vector};
use crate::scenario::locate::Seg;
use crate::scenario::schema::ScenarioToml;
use crate::world::Bounds;

/// The bounds seen from above: x and y (the bounds themselves in the plane).
pub(super) fn ground<V: Vector>(b: &Bounds<V>) -> Bounds<Vec2> {
    Bounds {
        kind: b.kind,
        min: Vec2::new(b.min.axis(0), b.min.axis(1)),
        max: Vec2::new(b.max.axis(0), b.max.axis(1)),
    }
}

impl<V: crate::world::Dimension> Validator<'_, V> {
    /// `dimensions` is 2 or 3 and is what this validator reads; a scenario in space has none
    /// of the planar parts.
    pub(super) fn dimensions(&mut self, raw: &ScenarioToml) -> Option<()> {
        use Seg::Key;
        let dimensions = raw.dimensions.unwrap_or(2);
        if dimensions != 2 && dimensions != 3 {
            return self.fail(
                &[Key("dimensions")],
                format!("expected 2 (the plane) or 3 (space), found {dimensions}"),
            );
        }
        if dimensions as usize != V::DIMENSIONS {
            return self.fail(
                &[Key("dimensions")],
                if dimensions == 3 {
                    "a scenario in space (`dimensions = 3`): a planar scenario was asked for here (the library's `Scenario::parse` reads planar files; `Scenario::<Vec3>::parse_as` reads this one)"
                } else {
                    "a planar scenario where one in space (`dimensions = 3`) was expected"
                },
            );
        }
        if V::DIMENSIONS == 3 {
            let planar = [
                ("exits", !raw.exits.is_empty()),
                ("gates", !raw.gates.is_empty()),
                ("sources", !raw.sources.is_empty()),
                ("measure", !raw.measure.is_empty()),
                ("waiting", !raw.waiting.is_empty()),
                ("stages", !raw.stages.is_empty()),
                ("journeys", !raw.journeys.is_empty()),
            ];
            if let Some((key, _)) = planar.iter().find(|(_, present)| *present) {
                return self.fail(
                    &[Key(key)],
                    format!("`{key}` is planar: a scenario with `dimensions = 3` cannot have it yet (exits, gates, measurement areas, sources, waiting areas and journeys are built for the plane)"),
                );
            }
            for (g, group) in raw.groups.iter().enumerate() {
                let at = |k: &'static str| [Key("groups"), Seg::Index(g), Key(k)];
                let model = match &group.model {
                    Some(toml::Value::String(name)) => Some(name.as_str()),
                    Some(toml::Value::Table(t)) => t.get("kind").and_then(|k| k.as_str()),
                    _ => None,
                };
                if model.is_some_and(|m| m != "steering") {
                    return self.fail(
                        &at("model"),
                        "the velocity models are planar: a group in space steers (no `model`)",
                    );
                }
                if group.parties.is_some() {
                    return self.fail(
                        &at("parties"),
                        "parties (social groups) walk in the plane: not available with `dimensions = 3` yet",
                    );
                }
                if !group.on_closed.is_empty() {
                    return self
                        .fail(&at("on_closed"), "`on_closed` follows doors and exits, which are planar");
                }
                for (b, behaviour) in group.behaviours.iter().enumerate() {
                    let path = [Key("groups"), Seg::Index(g), Key("behaviours"), Seg::Index(b)];
                    if behaviour.params.get("route").and_then(|v| v.as_str()) == Some("field") {
                        return self.fail(
                            &path,
                            "`route = \"field\"` routes around walls, which are planar: not available with `dimensions = 3` yet",
                        );
                    }
                }
            }
        }
        Some(())
    }
}
