//! One tick's agents copied out of the world, rows in id order: what a trace's writer writes
//! (on its own thread, while the run goes on) and what `throng render` draws.

use crate::dimension::CliDimension;
use throng_engine::World;
use throng_engine::math::Vec2;
use throng_engine::world::Scene;

/// One traced tick: the live agents, rows in id order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frame {
    pub tick: u64,
    pub id: Vec<u32>,
    /// Index into the world's groups.
    pub group: Vec<u16>,
    /// x and y of each agent (in space, its place seen from above).
    pub position: Vec<Vec2>,
    pub velocity: Vec<Vec2>,
    /// z and vz of each agent of a run in space; empty for a planar run.
    pub z: Vec<f32>,
    pub vz: Vec<f32>,
    /// Body radius, world units.
    pub radius: Vec<f32>,
    /// Whether each door is closed, in door order; empty when unknown (a trace does not
    /// record it: the doors are drawn as at tick 0).
    pub closed_doors: Vec<bool>,
}

impl Frame {
    /// The agents of `world`, rows in id order (the pipeline may keep them in spatial order).
    pub fn of<V: CliDimension>(world: &World<V>) -> Frame {
        let a = &world.agents;
        let order = a.id_order();
        fn gather<T: Copy>(col: &[T], order: &Option<Vec<u32>>) -> Vec<T> {
            match order {
                None => col.to_vec(),
                Some(o) => o.iter().map(|&r| col[r as usize]).collect(),
            }
        }
        // Space's columns split into the ground and the height (the plane's are all ground).
        let ground =
            |col: &Vec<V>| gather(col, &order).into_iter().map(|p| Vec2::new(p.axis(0), p.axis(1))).collect();
        let height = |col: &Vec<V>| match V::DIMENSIONS {
            3 => gather(col, &order).into_iter().map(|p| p.axis(2)).collect(),
            _ => Vec::new(),
        };
        Frame {
            tick: world.tick,
            id: gather(&a.id, &order),
            group: gather(&a.group, &order),
            position: ground(&a.position),
            velocity: ground(&a.velocity),
            z: height(&a.position),
            vz: height(&a.velocity),
            radius: gather(&a.radius, &order),
            closed_doors: world.scene.parts().doors.iter().map(|d| d.closed).collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.id.len()
    }
}
