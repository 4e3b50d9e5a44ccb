//! One traced tick copied out of the world, agents in id order, so that a trace's writer can
//! write it on its own thread while the run goes on (see `Trace` in mod.rs).

use throng_engine::World;
use throng_engine::math::Vec2;

/// The agents of one traced tick, in id order, and what a trace needs of the scene.
pub struct Frame {
    pub tick: u64,
    pub id: Vec<u32>,
    /// Index into the world's groups.
    pub group: Vec<u32>,
    pub position: Vec<Vec2>,
    pub velocity: Vec<Vec2>,
    pub radius: Vec<f32>,
    /// The walkable area as WKT, when the trace keeps the geometry and it changed since the
    /// last frame (the first frame, a door opened or closed).
    pub geometry: Option<String>,
}

impl Frame {
    /// Copies the agents of `world` in id order, with `geometry` attached.
    pub fn of(world: &World, geometry: Option<String>) -> Frame {
        let a = &world.agents;
        let rows = a.rows_in_id_order();
        Frame {
            tick: world.tick,
            id: rows.iter().map(|&r| a.id[r]).collect(),
            group: rows.iter().map(|&r| a.group[r] as u32).collect(),
            position: rows.iter().map(|&r| a.position[r]).collect(),
            velocity: rows.iter().map(|&r| a.velocity[r]).collect(),
            radius: rows.iter().map(|&r| a.radius[r]).collect(),
            geometry,
        }
    }

    pub fn len(&self) -> usize {
        self.id.len()
    }
}
