//! Event actions fired by a program between ticks (`Simulation::fire`, `parse_action`): a door
//! the program opens is the door an event opens, bit for bit; a burst and a removal return and
//! count what they did; an action naming nothing real is refused where it is wrong.

use throng_engine::math::Vec2;
use throng_engine::world::Action;
use throng_engine::{ControlError, RunSettings, Scenario, Simulation, parse_action};

/// tests/data/door_room.toml: a room whose door opens at 2 s, by an event, or (without it) by the
/// program.
fn room(with_event: bool) -> String {
    let event = if with_event { "\n[[events]]\nat_s = 2\naction = \"open\"\ndoor = \"door\"\n" } else { "" };
    format!("{}{event}", include_str!("../data/door_room.toml"))
}

fn open_door(text: &str) -> Action {
    parse_action(text, "room.toml", &[], "action = \"open\"\ndoor = \"door\"", "action")
        .expect("a valid action")
}

#[test]
fn a_door_the_program_opens_is_the_door_an_event_opens() {
    let by_event = Scenario::parse(&room(true), "room.toml").expect("valid");
    let text = room(false);
    let by_program = Scenario::parse(&text, "room.toml").expect("valid");
    let mut a = Simulation::new(&by_event, RunSettings::embedded(2)).expect("a simulation");
    let mut b = Simulation::new(&by_program, RunSettings::embedded(3)).expect("a simulation");
    let open = open_door(&text);
    for tick in 0..120 {
        if tick == 20 {
            assert_eq!(b.fire(&open), Ok(vec![]), "an open adds no agent");
        }
        a.step().expect("finite");
        b.step().expect("finite");
        let (wa, wb) = (a.world(), b.world());
        assert_eq!(wa.agents.id, wb.agents.id, "tick {tick}: the same agents");
        let bits = |v: &[Vec2]| v.iter().flat_map(|p| [p.x.to_bits(), p.y.to_bits()]).collect::<Vec<_>>();
        assert_eq!(bits(&wa.agents.position), bits(&wb.agents.position), "tick {tick}: positions");
        assert_eq!(bits(&wa.agents.velocity), bits(&wb.agents.velocity), "tick {tick}: velocities");
    }
    assert!(a.world().exited > 0, "agents left through the open door");
}

#[test]
fn a_burst_returns_its_ids_and_a_removal_counts_as_removed() {
    let text = room(false);
    let scenario = Scenario::parse(&text, "room.toml").expect("valid");
    let run = |threads| {
        let mut sim = Simulation::new(&scenario, RunSettings::embedded(threads)).expect("a simulation");
        sim.run(5).expect("finite");
        let spawn = "action = \"spawn\"\ngroup = \"crowd\"\ncount = 4\nregion = { kind = \"rect\", min = [2, 2], max = [4, 4] }";
        let added =
            sim.fire(&parse_action(&text, "room.toml", &[], spawn, "action").expect("valid")).expect("room");
        assert_eq!(added, [30, 31, 32, 33], "the next ids");
        let remove = "action = \"remove\"\nregion = { kind = \"rect\", min = [0, 0], max = [5, 10] }";
        let before = sim.world().agents.len();
        sim.fire(&parse_action(&text, "room.toml", &[], remove, "action").expect("valid")).expect("fits");
        assert_eq!(sim.world().removed as usize, before - sim.world().agents.len());
        assert!(sim.world().removed >= 4, "the burst was inside the region");
        sim.run(20).expect("finite");
        sim.hash()
    };
    assert_eq!(run(1), run(4), "the same calls give the same state at any thread count");
}

#[test]
fn an_action_naming_nothing_real_is_refused_where_it_is_wrong() {
    let text = room(false);
    let err = parse_action::<Vec2>(&text, "room.toml", &[], "action = \"open\"\ndoor = \"dor\"", "action")
        .expect_err("no such door");
    assert_eq!((err.file.as_str(), err.key.as_str()), ("action", "door"), "{err}");
    assert!(err.message.contains("did you mean \"door\""), "{err}");
    let err = parse_action::<Vec2>(
        &text,
        "room.toml",
        &[],
        "action = \"open\"\nat_s = 3\ndoor = \"door\"",
        "action",
    )
    .expect_err("no trigger");
    assert_eq!(err.key, "at_s", "{err}");
    let err = parse_action::<Vec2>(&text, "room.toml", &[], "action = \"open\"\n\ndoor = 7", "action")
        .expect_err("a name, not a number");
    assert_eq!((err.key.as_str(), err.location.map(|l| l.0)), ("door", Some(3)), "{err}");
    let scenario = Scenario::parse(&text, "room.toml").expect("valid");
    let mut sim = Simulation::new(&scenario, RunSettings::embedded(1)).expect("a simulation");
    let before = sim.hash();
    let no_door = Action::Open(throng_engine::world::Switch::Door(3));
    assert_eq!(sim.fire(&no_door), Err(ControlError::NoSuch { what: "door", index: 3, count: 1 }));
    assert_eq!(sim.hash(), before, "nothing changed");
}
