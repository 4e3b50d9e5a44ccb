//! Validating `[[waiting]]` entries: a named region (rect or circle) and the groups it holds.

use super::Validator;
use crate::scenario::locate::Seg;
use crate::scenario::schema::ExitToml;
use crate::world::WaitingArea;

impl<V: crate::world::Dimension> Validator<'_, V> {
    /// The waiting areas, in file order.
    pub(super) fn waiting(&mut self, raw: &[ExitToml], groups: &[&str]) -> Option<Vec<WaitingArea>> {
        use Seg::{Index, Key};
        let mut areas = Vec::new();
        for (i, w) in raw.iter().enumerate() {
            let base = [Key("waiting"), Index(i)];
            let region = self.plane_region(&base, region_keys!(w), "waiting area")?;
            let name = [Key("waiting"), Index(i), Key("name")];
            if w.name.trim().is_empty() {
                return self.fail(&name, "expected a non-empty name");
            }
            if raw[..i].iter().any(|o| o.name == w.name) {
                return self.fail(&name, format!("waiting area name \"{}\" is used twice", w.name));
            }
            let mut gs = Vec::new();
            for (k, g) in w.groups.iter().enumerate() {
                gs.push(self.group_index(&[Key("waiting"), Index(i), Key("groups"), Index(k)], g, groups)?);
            }
            areas.push(WaitingArea {
                name: w.name.clone(),
                region,
                groups: gs,
                held: Vec::new(),
                released: Vec::new(),
            });
        }
        Some(areas)
    }
}
