//! An event action written by a program, not a file (`Simulation::fire`): its keys are those
//! of an `[[events]]` entry without the trigger (`action = "open"`, `door = "exit"`), checked
//! against the scenario exactly as the scenario's own events are, names and suggestions
//! included, because they are: the action is validated as one more event of the scenario.

use super::ScenarioError;
use super::overrides::{self, Override};
use crate::world::{Action, Dimension};

/// The name the action takes as an event while it is checked.
const NAME: &str = "the program's action";

/// The keys that place an event in time or name it, which an action fired now does not take.
const TRIGGER_KEYS: [&str; 7] = ["name", "at_s", "every_s", "start_s", "end_s", "when", "repeat"];

/// The action that `action_toml` (TOML keys of an `[[events]]` entry, without its trigger)
/// describes in the scenario `text` (read from `origin`, with `overrides`). Errors name
/// `origin_of_action` and their line and column inside `action_toml`, and keys relative to it.
pub fn parse_action<V: Dimension>(
    text: &str,
    origin: &str,
    overrides: &[Override],
    action_toml: &str,
    origin_of_action: &str,
) -> Result<Action<V>, ScenarioError> {
    let located = |location, key: &str, message: String| ScenarioError {
        file: origin_of_action.to_string(),
        location,
        key: key.to_string(),
        message,
    };
    let keys: toml::Table = toml::from_str(action_toml)
        .map_err(|e| super::locate::toml_error(origin_of_action, action_toml, None, &e))?;
    if let Some(key) = TRIGGER_KEYS.iter().find(|k| keys.contains_key(**k)) {
        return Err(located(
            None,
            key,
            format!("an action fired now takes no `{key}` (it applies before the next tick)"),
        ));
    }
    // Another event entry after the file's own: `[[events]]` appends to the array whatever
    // table the file ended in.
    let head = format!("{text}\n\n[[events]]\nname = \"{NAME}\"\nat_s = 0\n");
    let before = head.matches('\n').count();
    let full = format!("{head}{action_toml}\n");
    let file: toml::Table = toml::from_str(text).unwrap_or_default();
    let events_before = file.get("events").and_then(|e| e.as_array()).map_or(0, Vec::len);
    let scenario = overrides::parse_as::<V>(&full, origin, overrides).map_err(|e| {
        let prefix = format!("events[{events_before}]");
        match e.key.strip_prefix(&prefix) {
            Some(rest) => {
                let location = e.location.and_then(|(line, col)| line.checked_sub(before).map(|l| (l, col)));
                located(location.filter(|(l, _)| *l > 0), rest.trim_start_matches('.'), e.message)
            }
            None => e,
        }
    })?;
    let event = scenario.events.into_iter().find(|e| e.name == NAME);
    event.map(|e| e.action).ok_or_else(|| located(None, "", "the action could not be read".into()))
}
