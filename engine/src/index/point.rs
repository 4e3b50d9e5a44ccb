//! `Point`: a position the agents' index can hold, in the plane or in space: a [`Vector`] with
//! its k-d tree (kiddo's, over its own number of coordinates) and its sensing scratch (one
//! per dimension and worker thread).

use std::cell::RefCell;

use kiddo::SquaredEuclidean;

use super::kd::{Tree, build_tree};
use super::obstacles::{ObstacleIndex, penetration};
use super::sense_rows::SenseScratch;
use crate::math::{Vec2, Vec3};
use crate::world::{Dimension, World};

/// A [`Vector`](crate::math::Vector) the agents' index holds. Implemented for `Vec2` and `Vec3`; the index, the
/// neighbour lists and sensing are written once against it.
pub trait Point: Dimension {
    /// The coordinates as kiddo stores them (`[f32; 2]` or `[f32; 3]`).
    type Coords: Copy + Send + Sync + 'static;
    /// kiddo's immutable tree over `Coords`.
    type Tree: Send + Sync;

    /// The point's coordinates, in axis order.
    fn coords(self) -> Self::Coords;
    /// The tree over `points` (parallel when the pool has more than one worker).
    fn build_tree(points: &[Self::Coords]) -> Self::Tree;
    /// Calls `visit(item)` for every item of `tree` within `√r_sq` of `q` (kiddo's radius
    /// query, unsorted).
    fn tree_within(tree: &Self::Tree, q: Self, r_sq: f32, visit: &mut impl FnMut(u32));
    /// The item of `tree` nearest to `q` (kiddo's `nearest_one`; ties as kiddo breaks them,
    /// which is why callers test every candidate that close exactly).
    fn tree_nearest(tree: &Self::Tree, q: Self) -> u32;
    /// Runs `f` with this worker thread's sensing scratch for this dimension.
    fn with_sense_scratch<R>(f: impl FnOnce(&mut SenseScratch<Self>) -> R) -> R;
    /// The index of `world`'s walls; `None` without walls, and always in space (its solids
    /// are few and tested one by one).
    fn walls_index(world: &World<Self>) -> Option<ObstacleIndex>;
    /// How far agent row `row` of `world` reaches into its obstacles (0 when clear): through
    /// `walls` in the plane (none without walls), solid by solid in space.
    fn penetration_depth(world: &World<Self>, walls: Option<&ObstacleIndex>, row: usize) -> f32;
}

macro_rules! point_for {
    ($ty:ty, $k:literal, $bucket:expr, $scratch:ident, $walls_index:expr, $depth:expr) => {
        thread_local! {
            static $scratch: RefCell<SenseScratch<$ty>> = RefCell::new(SenseScratch::default());
        }

        impl Point for $ty {
            type Coords = [f32; $k];
            type Tree = Tree<$k, { $bucket }>;

            #[inline]
            fn coords(self) -> [f32; $k] {
                self.to_array()
            }
            fn build_tree(points: &[[f32; $k]]) -> Tree<$k, { $bucket }> {
                build_tree(points)
            }
            #[inline]
            fn tree_within(tree: &Tree<$k, { $bucket }>, q: Self, r_sq: f32, visit: &mut impl FnMut(u32)) {
                tree.query(&q.to_array())
                    .within::<SquaredEuclidean<f32>>(r_sq)
                    .unsorted()
                    .visit(|hit| visit(hit.item));
            }
            #[inline]
            fn tree_nearest(tree: &Tree<$k, { $bucket }>, q: Self) -> u32 {
                tree.query(&q.to_array()).nearest_one::<SquaredEuclidean<f32>>().execute().item
            }
            #[inline]
            fn with_sense_scratch<R>(f: impl FnOnce(&mut SenseScratch<Self>) -> R) -> R {
                $scratch.with_borrow_mut(f)
            }
            fn walls_index(world: &World<Self>) -> Option<ObstacleIndex> {
                $walls_index(world)
            }
            fn penetration_depth(world: &World<Self>, walls: Option<&ObstacleIndex>, row: usize) -> f32 {
                $depth(world, walls, row)
            }
        }
    };
}

point_for!(Vec2, 2, super::kd::BUCKET, PLANE_SCRATCH, plane_walls_index, plane_depth);
point_for!(Vec3, 3, SPACE_BUCKET, SPACE_SCRATCH, |_| None, space_depth);

fn plane_walls_index(world: &World) -> Option<ObstacleIndex> {
    (!world.obstacles.is_empty()).then(|| ObstacleIndex::build(&world.obstacles, &world.bounds))
}

fn plane_depth(world: &World, walls: Option<&ObstacleIndex>, row: usize) -> f32 {
    let (p, r) = (world.agents.position[row], world.agents.radius[row]);
    walls.map_or(0.0, |oi| penetration(oi, &world.obstacles, p, r))
}

fn space_depth(world: &World<Vec3>, _: Option<&ObstacleIndex>, row: usize) -> f32 {
    let (p, r) = (world.agents.position[row], world.agents.radius[row]);
    world.obstacles.iter().map(|o| r - o.signed_distance(o.local(&world.bounds, p))).fold(0.0, f32::max)
}

/// Leaf size of the k-d tree in space: 32 measured about 5 % faster to sense than the plane's
/// 64, and than 16, on a uniform flock of 100k in space (docs/benchmarks.md).
const SPACE_BUCKET: usize = 32;
