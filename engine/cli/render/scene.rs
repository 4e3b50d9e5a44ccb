//! What a picture shows that does not move: the scene (name, groups, static geometry) and
//! the world extent it covers.

use throng_engine::World;
use throng_engine::math::Vec2;
use throng_engine::world::{Bounds, Door, Exit, Gate, Obstacle, Path, Source, Target};

/// Radius (world units) drawn for agents whose radius a trace does not give: the scenario
/// default.
pub const DEFAULT_RADIUS: f32 = 0.5;

/// Static geometry of a scenario.
#[derive(Clone, Debug)]
pub struct Geometry {
    pub bounds: Bounds,
    /// A run in space: its bounds box's twelve edges, projected, drawn instead of the bounds
    /// rectangle (empty in the plane).
    pub edges: Vec<(Vec2, Vec2)>,
    /// The obstacles that always stand (not the doors).
    pub obstacles: Vec<Obstacle>,
    /// The named obstacles events open and close, as at tick 0.
    pub doors: Vec<Door>,
    pub paths: Vec<Path>,
    pub exits: Vec<Exit>,
    pub sources: Vec<Source>,
    pub gates: Vec<Gate>,
    /// The targets with their names (`""` for inline points).
    pub targets: Vec<(String, Target)>,
    /// The journeys' stages, and the links their transitions make.
    pub stages: Vec<super::stages::StageMark>,
    pub links: Vec<(Vec2, Vec2)>,
    /// Every party member at tick 0 as (id, party), in id order.
    pub parties: Vec<(u32, u32)>,
}

impl Geometry {
    /// The geometry of `world`; `target_names` names its first targets (the scenario's).
    pub fn of(world: &World, target_names: &[String]) -> Geometry {
        let name = |t: usize| target_names.get(t).cloned().unwrap_or_default();
        let (stages, links) = super::stages::of(world);
        Geometry {
            stages,
            links,
            parties: super::parties::of(world),
            targets: world.targets.iter().enumerate().map(|(t, target)| (name(t), target.clone())).collect(),
            bounds: world.bounds,
            edges: Vec::new(),
            obstacles: world.obstacles[..world.fixed_obstacles as usize].to_vec(),
            doors: world.scene.doors.clone(),
            paths: world.paths.clone(),
            exits: world.scene.exits.clone(),
            sources: world.scene.sources.clone(),
            gates: world.scene.gates.clone(),
        }
    }

    /// The bounds and everything drawn, as one world rectangle.
    pub fn extent(&self) -> Extent {
        let mut e = Extent::default();
        e.add(self.bounds.min);
        e.add(self.bounds.max);
        for o in self.obstacles.iter().chain(self.doors.iter().map(|d| &d.obstacle)) {
            let (lo, hi) = o.bounding_box();
            e.add(lo);
            e.add(hi);
        }
        for p in &self.paths {
            for &n in &p.nodes {
                e.add(n - Vec2::splat(p.radius));
                e.add(n + Vec2::splat(p.radius));
            }
        }
        // An exit at each agent's own goal has no place of its own to frame or draw.
        let exits = self.exits.iter().filter(|x| !x.at_own_goal).map(|x| x.region);
        for region in exits.chain(self.sources.iter().map(|s| s.region)) {
            let (lo, hi) = region.aabb();
            e.add(lo);
            e.add(hi);
        }
        for g in &self.gates {
            e.add(g.from);
            e.add(g.to);
        }
        for (_, t) in &self.targets {
            match t {
                Target::Point(p) | Target::Opposite { centre: p } => e.add(*p),
                Target::Moving { waypoints, .. } => waypoints.iter().for_each(|&w| e.add(w)),
                Target::Random { region, .. } => {
                    let (lo, hi) = region.aabb();
                    e.add(lo);
                    e.add(hi);
                }
                Target::Agent(_)
                | Target::NearestOf(_)
                | Target::Direction { .. }
                | Target::Own
                | Target::Journey => {}
            }
        }
        e
    }
}

/// A growing axis-aligned box.
#[derive(Clone, Copy, Debug)]
pub struct Extent {
    pub min: Vec2,
    pub max: Vec2,
}

impl Default for Extent {
    fn default() -> Self {
        Extent { min: Vec2::splat(f32::INFINITY), max: Vec2::splat(f32::NEG_INFINITY) }
    }
}

impl Extent {
    pub fn add(&mut self, p: Vec2) {
        self.min = self.min.min(p);
        self.max = self.max.max(p);
    }

    pub fn is_empty(&self) -> bool {
        !(self.min.x <= self.max.x && self.min.y <= self.max.y)
    }
}

/// Everything about a run that does not change from frame to frame.
#[derive(Clone, Debug)]
pub struct Scene {
    pub name: String,
    /// Seconds per tick, when known (a scenario gives it; a trace alone does not).
    pub dt: Option<f32>,
    pub groups: Vec<String>,
    /// Static geometry, when a scenario is known.
    pub geometry: Option<Geometry>,
}
