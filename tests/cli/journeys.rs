//! Journeys worked out by hand on small scenes: a waypoint, then exits chosen in turn, by
//! fewest heading, by the shortest walk and by weighted draws; waiting stages released by
//! events; a `journey` event switching agents; and bad entries rejected with their position.

use throng_engine::world::NO_JOURNEY;
use throng_engine::{RunSettings, Scenario, Simulation};

use super::check_rejects;

/// Walkers spawned at the listed points walk to stage `gate` (a waypoint at (10, 5), radius
/// 1), then to an exit chosen by `choose` among `west` (x < 1), `east` (x > 19) and `north`
/// (y > 19) of a 20 × 20 open world; `extra` adds keys at the end.
fn scene_text(points: &str, transition: &str, extra: &str) -> String {
    format!(
        r#"version = 1
name = "journeys"
seed = 4
dt = 0.1
ticks = 600

[bounds]
min = [0, 0]
max = [20, 20]

[[exits]]
name = "west"
kind = "rect"
min = [0, 0]
max = [1, 20]

[[exits]]
name = "east"
kind = "rect"
min = [19, 0]
max = [20, 20]

[[exits]]
name = "north"
kind = "rect"
min = [1, 19]
max = [19, 20]

[[stages]]
name = "gate"
kind = "waypoint"
position = [10, 5]
radius = 1

[[stages]]
name = "west"
kind = "exit"
exit = "west"

[[stages]]
name = "east"
kind = "exit"
exit = "east"

[[stages]]
name = "north"
kind = "exit"
exit = "north"

[[journeys]]
name = "out"
start = "gate"
[[journeys.transitions]]
from = "gate"
{transition}

[targets.stage]
kind = "journey"

[[groups]]
name = "walkers"
count = {count}
spawn = {{ kind = "points", points = [{points}] }}
max_speed = 2.0
max_force = 20.0
radius = 0.1
journey = "out"

[[groups.behaviours]]
kind = "seek"
target = "stage"
{extra}"#,
        count = points.matches('[').count(),
    )
}

fn scene(points: &str, transition: &str, extra: &str) -> Scenario {
    Scenario::parse(&scene_text(points, transition, extra), "journeys.toml").expect("a valid scene")
}

fn sim(s: &Scenario) -> Simulation {
    Simulation::new(s, RunSettings { threads: 2, ..RunSettings::default() }).expect("simulation")
}

/// Each stage's finished visits after `ticks`.
fn finished(s: &Scenario, ticks: u64) -> Vec<u64> {
    let mut sim = sim(s);
    sim.run(ticks).expect("runs");
    sim.world().scene.stages.iter().map(|s| s.finished).collect()
}

/// Six walkers in a row along y = 5 from x = 4 to 9, reaching the gate one after another.
const ROW: &str = "[4, 5], [5, 5], [6, 5], [7, 5], [8, 5], [9, 5]";

#[test]
fn a_fixed_journey_goes_through_its_waypoint_to_its_exit() {
    let s = scene(ROW, "to = \"north\"", "");
    let mut sim = sim(&s);
    // At spawn: on the journey, at its first stage, walking to the gate.
    let a = &sim.world().agents;
    assert!(a.journey.iter().all(|&j| j == 0) && a.stage.iter().all(|&s| s == 0));
    assert!(a.goal.iter().all(|g| *g == throng_engine::math::Vec2::new(10.0, 5.0)));
    sim.run(600).expect("runs");
    let w = sim.world();
    assert_eq!(w.agents.len(), 0, "every walker left");
    assert_eq!(w.exited, 6);
    let stages: Vec<u64> = w.scene.stages.iter().map(|s| s.finished).collect();
    assert_eq!(stages, [6, 0, 0, 6], "gate, west, east, north");
    // Walking 2 m/s: the walker from x = 9 reaches the gate's radius (1 m) within a few
    // ticks, the one from x = 4 after about 2.5 s; each visit is counted with its ticks.
    let gate = &w.scene.stages[0];
    assert!(gate.finished_ticks > 6 * 3 && gate.finished_ticks < 6 * 40, "{}", gate.finished_ticks);
}

#[test]
fn a_weighted_round_robin_sends_each_exit_its_weight_per_round() {
    // Weights 2, 1 to west and east: the six walkers reach the gate in id order from the
    // nearest (id 5 at x = 9) down: west, west, east, west, west, east.
    let s = scene(ROW, "choose = \"round_robin\"\nto = [\"west\", \"east\"]\nweights = [2, 1]", "");
    assert_eq!(finished(&s, 600), [6, 4, 2, 0]);
    let mut sim = sim(&s);
    sim.run(600).expect("runs");
    assert_eq!(sim.world().scene.journeys[0].transitions[0].sent, 6);
}

#[test]
fn least_targeted_spreads_the_walkers_over_the_open_exits() {
    // Each walker at the gate takes the exit fewest are heading to; ties to the first listed.
    let s = scene(ROW, "choose = \"least_targeted\"\nto = [\"west\", \"east\", \"north\"]", "");
    assert_eq!(finished(&s, 600), [6, 2, 2, 2]);
    // With the west exit closed from the start, the other two share them.
    let closed = scene(
        ROW,
        "choose = \"least_targeted\"\nto = [\"west\", \"east\", \"north\"]",
        "\n[[events]]\nat_s = 0\naction = \"close\"\nexit = \"west\"\n",
    );
    assert_eq!(finished(&closed, 600), [6, 0, 3, 3]);
}

#[test]
fn walkers_heading_to_an_exit_that_closes_choose_again() {
    // Round robin sends west, east, west, ...; at 3 s, while the first walkers are on their
    // way (the exits are 9 m from the gate), the west stage closes: those heading there choose
    // again by the same transition and all leave east.
    let transition = "choose = \"round_robin\"\nto = [\"west\", \"east\"]";
    let close = |at: f32, what: &str| format!("\n[[events]]\nat_s = {at}\naction = \"close\"\n{what}\n");
    assert_eq!(finished(&scene(ROW, transition, ""), 600), [6, 3, 3, 0]);
    let s = scene(ROW, transition, &close(3.0, "stage = \"west\""));
    let mut early = sim(&s);
    early.run(30).expect("runs");
    let heading_west = early.world().agents.stage.iter().filter(|&&s| s == 1).count();
    assert!(heading_west > 0, "someone heads west before the close");
    assert_eq!(finished(&s, 600), [6, 0, 6, 0]);
    // Closing the exit itself does the same.
    assert_eq!(finished(&scene(ROW, transition, &close(3.0, "exit = \"west\"")), 600), [6, 0, 6, 0]);
    // A fixed transition has nowhere else: its walkers keep heading to the closed exit.
    let fixed = scene(ROW, "to = \"west\"", &close(3.0, "stage = \"west\""));
    let mut stuck = sim(&fixed);
    stuck.run(600).expect("runs");
    assert!(stuck.world().agents.stage.iter().all(|&s| s == 1), "all still heading west");
    assert_eq!(stuck.world().scene.journeys[0].transitions[0].sent, 6, "no choice made again");
}

#[test]
fn a_closed_waypoint_is_not_chosen_and_its_walkers_choose_again() {
    // From the gate, least_targeted between two waypoints north of it, then on to the north
    // exit. Open, they share the walkers; with `left` closed at 0 s every walker takes
    // `right`; closed at 2 s, those on their way to `left` turn to `right` too.
    let extra = |close: &str| {
        format!(
            "\n[[stages]]\nname = \"left\"\nkind = \"waypoint\"\nposition = [6, 12]\nradius = 1\n\n[[stages]]\nname = \"right\"\nkind = \"waypoint\"\nposition = [14, 12]\nradius = 1\n\n[[journeys.transitions]]\nfrom = \"left\"\nto = \"north\"\n\n[[journeys.transitions]]\nfrom = \"right\"\nto = \"north\"\n{close}"
        )
    };
    let transition = "choose = \"least_targeted\"\nto = [\"left\", \"right\"]";
    let close = |at: f32| format!("\n[[events]]\nat_s = {at}\naction = \"close\"\nstage = \"left\"\n");
    // Stages: gate, west, east, north, left, right.
    assert_eq!(finished(&scene(ROW, transition, &extra("")), 600), [6, 0, 0, 6, 3, 3]);
    assert_eq!(finished(&scene(ROW, transition, &extra(&close(0.0))), 600), [6, 0, 0, 6, 0, 6]);
    let late = scene(ROW, transition, &extra(&close(2.0)));
    let mut early = sim(&late);
    early.run(19).expect("runs");
    assert!(early.world().agents.stage.contains(&4), "someone heads left before the close");
    assert_eq!(finished(&late, 600), [6, 0, 0, 6, 0, 6]);
}

#[test]
fn nearest_takes_the_shortest_walk_from_where_the_walker_stands() {
    // From the gate at (10, 5) the exits are 9 (west, x = 1), 9 (east, x = 19) and 14
    // (north, y = 19) away by the regions' centres: (0.5, 10) is 10.6, (19.5, 10) 10.7 and
    // (10, 19.5) 14.5. Each walker stops being at the gate within 1 m of (10, 5): on the west
    // side of it, coming from the west, so west is nearest for all.
    let s = scene(ROW, "choose = \"nearest\"\nto = [\"north\", \"east\", \"west\"]", "");
    assert_eq!(finished(&s, 600), [6, 6, 0, 0]);
}

#[test]
fn a_weighted_random_choice_is_drawn_per_walker_and_repeats_bit_for_bit() {
    // Weight 0 for the north exit: it is never drawn.
    let s = scene(ROW, "choose = \"random\"\nto = [\"west\", \"east\", \"north\"]\nweights = [1, 1, 0]", "");
    let got = finished(&s, 600);
    assert_eq!((got[0], got[1] + got[2], got[3]), (6, 6, 0));
    assert_eq!(finished(&s, 600), got, "the same draws again");
    // Sixty walkers: about half go each way (binomial, sd 3.9).
    let many: Vec<String> = (0..60).map(|k| format!("[{}, {}]", 2 + k % 6, 2 + k / 6)).collect();
    let s = scene(&many.join(", "), "choose = \"random\"\nto = [\"west\", \"east\"]", "");
    let got = finished(&s, 900);
    assert_eq!(got[0], 60);
    assert!(got[1] >= 18 && got[1] <= 42, "{got:?}");
}

/// The scene with the gate a waiting area (radius 1.5) that releases two at 20 s and the rest
/// at 30 s, the walkers going on to the east exit.
fn waiting_scene() -> String {
    scene_text(ROW, "to = \"east\"", "")
        .replace(
            "[[stages]]\nname = \"gate\"\nkind = \"waypoint\"\nposition = [10, 5]\nradius = 1",
            "[[waiting]]\nname = \"hall\"\nkind = \"circle\"\ncentre = [10, 5]\nradius = 1.5\n\n[[stages]]\nname = \"gate\"\nkind = \"waiting\"\narea = \"hall\"",
        )
        + "\n[[events]]\nat_s = 20\naction = \"release\"\narea = \"hall\"\ncount = 2\n\n[[events]]\nat_s = 30\naction = \"release\"\narea = \"hall\"\n"
}

#[test]
fn a_waiting_stage_holds_its_walkers_until_released_then_they_go_on() {
    let s = Scenario::parse(&waiting_scene(), "journeys.toml").expect("valid");
    let mut sim = sim(&s);
    sim.run(190).expect("runs");
    assert_eq!(sim.world().scene.waiting[0].held.len(), 6, "all six wait in the hall");
    assert_eq!(sim.world().exited, 0);
    sim.run(100).expect("runs");
    let w = sim.world();
    assert_eq!((w.scene.waiting[0].held.len(), w.exited), (4, 2), "the first two left by the east exit");
    assert!(w.scene.waiting[0].released.is_empty(), "released walkers move on and are forgotten");
    sim.run(200).expect("runs");
    assert_eq!(sim.world().exited, 6);
    assert_eq!(sim.world().scene.stages[0].finished, 6);
}

#[test]
fn the_metrics_count_each_stage_and_time_its_visits() {
    // The waiting scene again: at 19 s all six are held at the gate, and all are heading to it.
    let text = waiting_scene();
    let s = Scenario::parse(&text, "journeys.toml").expect("valid");
    let mut sim = sim(&s);
    sim.run(190).expect("runs");
    let m = sim.metrics().expect("metrics");
    let gate = m.last().stages[0];
    assert_eq!((gate.agents, gate.queue, gate.finished, gate.mean_s), (6, 6, 0, 0.0));
    sim.run(110).expect("runs");
    // Released by the event of 20 s, which fires before tick 200 runs: the two move on at the
    // end of that tick, 201 ticks (20.1 s of the f32 step 0.1) after they chose the gate at
    // spawn.
    let m = sim.metrics().expect("metrics");
    let (gate, east) = (m.last().stages[0], m.last().stages[2]);
    assert_eq!((gate.agents, gate.queue, gate.finished), (4, 4, 2));
    assert!((gate.mean_s - 201.0 * 0.1f32 as f64).abs() < 1e-9, "{}", gate.mean_s);
    assert_eq!((east.agents, east.finished), (0, 2), "both left by the east exit");
    let summary = m.summary(sim.world());
    assert_eq!(summary.stages[0].name, "gate");
    assert_eq!((summary.stages[0].queue_max, summary.stages[0].finished), (6, 2));
}

#[test]
fn a_journey_event_puts_the_agents_in_a_region_at_the_start_of_another() {
    // A second journey straight to the west exit; at 1 s the walkers east of x = 7.5 switch.
    let extra = "\n[[journeys]]\nname = \"back\"\nstart = \"west\"\n\n[[events]]\nat_s = 1\naction = \"journey\"\njourney = \"back\"\nregion = { kind = \"rect\", min = [7.5, 0], max = [20, 20] }\n";
    let text = scene_text(ROW, "to = \"north\"", "")
        .replace("[targets.stage]", &format!("{extra}\n[targets.stage]"));
    let s = Scenario::parse(&text, "journeys.toml").expect("valid");
    let mut sim = sim(&s);
    sim.run(11).expect("runs");
    let a = &sim.world().agents;
    let switched: Vec<u32> = (0..a.len()).filter(|&i| a.journey[i] == 1).map(|i| a.id[i]).collect();
    assert!(!switched.is_empty() && switched.iter().all(|&id| id >= 2), "the eastern walkers: {switched:?}");
    sim.run(600).expect("runs");
    let w = sim.world();
    assert_eq!(w.exited, 6);
    assert_eq!(w.scene.stages[1].finished as usize, switched.len(), "the switched left west");
    assert_eq!(w.scene.stages[3].finished as usize, 6 - switched.len(), "the others north");
    assert!(w.agents.journey.iter().all(|&j| j != NO_JOURNEY));
}

#[test]
fn bad_journeys_are_rejected_with_their_position() {
    let ok = scene_text(ROW, "to = \"north\"", "");
    // An unknown stage, with the nearest name.
    let bad = ok.replace("to = \"north\"", "to = \"nroth\"");
    check_rejects(
        "journey_unknown_stage",
        &bad,
        (55, 6),
        &["journeys[0].transitions[0].to", "no stage is named \"nroth\"", "did you mean \"north\""],
    );
    // A waypoint with no way on: walkers would stop there for ever.
    let bad = ok.replace("[[journeys.transitions]]\nfrom = \"gate\"\nto = \"north\"\n", "");
    check_rejects(
        "journey_dead_end",
        &bad,
        (50, 1),
        &["stage \"gate\"", "not an exit and has no transition"],
    );
    // A loop with no way out.
    let bad = ok.replace("to = \"north\"", "to = \"gate\"");
    check_rejects(
        "journey_cycle",
        &bad,
        (52, 9),
        &["never reaches an exit", "stage \"gate\" leads only back to itself"],
    );
    // A fixed transition to two stages.
    let bad = ok.replace("to = \"north\"", "to = [\"north\", \"east\"]");
    check_rejects("journey_fixed_two", &bad, (55, 6), &["a \"fixed\" transition goes to one stage, found 2"]);
    // Weights: one per stage, whole numbers for a round robin.
    let bad =
        ok.replace("to = \"north\"", "choose = \"round_robin\"\nto = [\"north\", \"east\"]\nweights = [1]");
    check_rejects("journey_weights", &bad, (57, 11), &["one weight per stage in `to` (2), found 1"]);
    let bad = ok.replace(
        "to = \"north\"",
        "choose = \"round_robin\"\nto = [\"north\", \"east\"]\nweights = [1, 1.5]",
    );
    check_rejects("journey_whole_weights", &bad, (57, 15), &["expected a whole number >= 0, found 1.5"]);
    // No transition leaves an exit.
    let bad = ok.replace(
        "to = \"north\"\n",
        "to = \"north\"\n[[journeys.transitions]]\nfrom = \"north\"\nto = \"east\"\n",
    );
    check_rejects("journey_from_exit", &bad, (57, 8), &["stage \"north\" is an exit"]);
    // A group put on a journey that none of its behaviours walks.
    let bad = ok.replace("target = \"stage\"", "target = \"fixed\"").replace(
        "[targets.stage]\nkind = \"journey\"",
        "[targets.stage]\nkind = \"journey\"\n\n[targets.fixed]\nkind = \"point\"\nposition = [1, 1]",
    );
    check_rejects("journey_not_walked", &bad, (71, 11), &["starts agents on a journey", "kind \"journey\""]);
    // A stage of an unknown kind, and a waypoint missing its radius.
    let bad = ok.replacen("kind = \"waypoint\"", "kind = \"waypoynt\"", 1);
    check_rejects("stage_kind", &bad, (31, 8), &["did you mean `waypoint`?"]);
    let bad = ok.replacen("radius = 1\n", "", 1);
    check_rejects("stage_radius", &bad, (29, 1), &["missing key `radius` for a \"waypoint\" stage"]);
    // A group's journey misspelt; a journey event that names no one; a source starting its
    // agents at a stage off their journey.
    let bad = ok.replace("journey = \"out\"", "journey = \"uot\"");
    check_rejects("group_journey", &bad, (67, 11), &["no journey is named \"uot\"; did you mean \"out\"?"]);
    let bad = format!("{ok}\n[[events]]\nat_s = 1\naction = \"journey\"\njourney = \"out\"\n");
    check_rejects("journey_event", &bad, (73, 1), &["needs `group`, `region` or both"]);
    let source = "\n[[sources]]\nname = \"door\"\ngroup = \"walkers\"\nkind = \"circle\"\ncentre = [2, 2]\nradius = 0.5\nrate = 1\nmax_agents = 5\nstage = \"west\"\n";
    check_rejects(
        "source_stage",
        format!("{ok}{source}"),
        (81, 9),
        &["stage \"west\" is not on journey \"out\""],
    );
}

/// Four walkers at x = 2, 3, 4, 5 on y = 5 walk east to the queue `line` (four slots 1 m apart,
/// the head at (15, 5)), whose `rules` release its head, then to the exit east of x = 19.
fn queue_text(rules: &str, extra: &str) -> String {
    format!(
        r#"version = 1
name = "queue"
seed = 2
dt = 0.1
ticks = 900

[bounds]
min = [0, 0]
max = [20, 10]

[[exits]]
name = "east"
kind = "rect"
min = [19, 0]
max = [20, 10]

[[stages]]
name = "line"
kind = "queue"
from = [15, 5]
to = [12, 5]
count = 4
{rules}

[[stages]]
name = "east"
kind = "exit"
exit = "east"

[[journeys]]
name = "through"
start = "line"
[[journeys.transitions]]
from = "line"
to = "east"

[targets.stage]
kind = "journey"

[[groups]]
name = "walkers"
count = 4
spawn = {{ kind = "points", points = [[2, 5], [3, 5], [4, 5], [5, 5]] }}
max_speed = 2.0
max_force = 20.0
radius = 0.2
journey = "through"

[[groups.behaviours]]
kind = "arrive"
target = "stage"
slowing_radius = 0.5
{extra}"#
    )
}

fn queue_scene(rules: &str, extra: &str) -> Scenario {
    Scenario::parse(&queue_text(rules, extra), "queue.toml").expect("a valid scene")
}

/// The tick of each visit the queue finished, in order, from the stage's count after each tick.
fn released_ticks(s: &Scenario, ticks: u64) -> Vec<u64> {
    let mut sim = sim(s);
    let mut out = Vec::new();
    for _ in 0..ticks {
        let before = sim.world().scene.stages[0].finished;
        sim.step().expect("steps");
        let now = sim.world().scene.stages[0].finished;
        out.extend((before..now).map(|_| sim.world().tick));
    }
    out
}

#[test]
fn a_queue_lines_its_walkers_up_in_the_order_they_came_and_serves_its_head() {
    // Joined at spawn in id order: walker 0 (x = 2) heads the line, though walker 3 is nearest.
    let s = queue_scene("service_s = 2", "");
    let sim0 = sim(&s);
    let q = sim0.world().scene.stages[0].queue.as_ref().expect("a queue");
    assert_eq!(q.queued, [0, 1, 2, 3]);
    let goals: Vec<f32> = sim0.world().agents.goal.iter().map(|g| g.x).collect();
    assert_eq!(goals, [15.0, 14.0, 13.0, 12.0], "each walks to its own slot");
    // The head reaches (15, 5) after about 7 s; each is served 2 s (20 ticks) after it stands
    // at the head, and the next then closes up 1 m: releases at least 20 ticks apart.
    let released = released_ticks(&s, 900);
    assert_eq!(released.len(), 4, "{released:?}");
    assert!(released[0] >= 20 + 60, "{released:?}");
    assert!(released.windows(2).all(|w| w[1] - w[0] >= 20 && w[1] - w[0] <= 40), "{released:?}");
    let mut sim = sim(&s);
    sim.run(900).expect("runs");
    assert_eq!(sim.world().exited, 4);
    assert_eq!(sim.metrics().expect("metrics").summary(sim.world()).stages[0].queue_max, 4);
}

#[test]
fn a_queue_head_is_released_by_events_or_when_the_next_stage_has_room() {
    // No service time: two released by the event at 20 s, the rest at 30 s.
    let events = "\n[[events]]\nat_s = 20\naction = \"release\"\nstage = \"line\"\ncount = 2\n\n[[events]]\nat_s = 30\naction = \"release\"\nstage = \"line\"\n";
    let released = released_ticks(&queue_scene("", events), 400);
    assert_eq!(released, [201, 201, 301, 301]);
    // Room for one: the head goes once no one is heading to the exit (the one before has
    // left), so the walkers leave one at a time.
    let released = released_ticks(&queue_scene("room = 1", ""), 900);
    assert_eq!(released.len(), 4, "{released:?}");
    let mut sim = sim(&queue_scene("room = 1", ""));
    for _ in 0..900 {
        sim.step().expect("steps");
        let heading_out = sim.world().agents.stage.iter().filter(|&&s| s == 1).count();
        assert!(heading_out <= 1, "at most one heads to the exit at a time");
    }
}

#[test]
fn an_event_reads_a_stage_s_counts() {
    // Two released at 20 s; the event watching the queue's finished visits lets the rest go on
    // the tick after they are counted.
    let events = "\n[[events]]\nat_s = 20\naction = \"release\"\nstage = \"line\"\ncount = 2\n\n[[events]]\nwhen = { metric = \"stages.line.finished\", min = 2 }\naction = \"release\"\nstage = \"line\"\n";
    assert_eq!(released_ticks(&queue_scene("", events), 400), [201, 201, 202, 202]);
    // A stage's name misspelt in a condition: the known ones are listed.
    let bad = queue_text("", &events.replace("stages.line.finished", "stages.lnie.finished"));
    check_rejects(
        "stage_condition",
        &bad,
        (61, 19),
        &["unknown condition \"stages.lnie.finished\"; did you mean \"stages.line.finished\"?"],
    );
}

#[test]
fn an_agent_put_again_at_the_queue_it_stands_in_keeps_its_place() {
    // At 1 s every walker is switched to the start of the journey it is on: the queue.
    let again = "\n[[events]]\nat_s = 1\naction = \"journey\"\njourney = \"through\"\ngroup = \"walkers\"\n";
    let mut sim = sim(&queue_scene("service_s = 2", again));
    sim.run(20).expect("runs");
    let q = sim.world().scene.stages[0].queue.as_ref().expect("a queue");
    assert_eq!(q.queued, [0, 1, 2, 3], "no one twice");
    assert_eq!(released_ticks(&queue_scene("service_s = 2", again), 900).len(), 4);
}

#[test]
fn bad_queues_are_rejected_with_their_position() {
    // No slots; slots two ways at once; a release event naming a stage that is not a queue.
    let bad = queue_text("", "").replace("from = [15, 5]\nto = [12, 5]\ncount = 4\n", "");
    check_rejects("queue_no_slots", &bad, (17, 1), &["a \"queue\" stage needs its slots"]);
    let bad = queue_text("slots = [[1, 1]]", "");
    check_rejects("queue_two_ways", &bad, (23, 9), &["either `slots`", "not both"]);
    let release = "\n[[events]]\nat_s = 1\naction = \"release\"\nstage = \"east\"\n";
    check_rejects("queue_release", queue_text("", release), (57, 9), &["stage \"east\" is not a queue"]);
}
