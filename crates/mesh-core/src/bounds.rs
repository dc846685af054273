//! Bounding volumes.

use glam::Vec3;

/// Axis-aligned box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// Smallest corner.
    pub min: Vec3,
    /// Largest corner.
    pub max: Vec3,
}

impl Aabb {
    /// Centre point.
    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    /// Edge lengths.
    pub fn size(&self) -> Vec3 {
        self.max - self.min
    }
}

/// Bounding sphere.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sphere {
    /// Centre.
    pub center: Vec3,
    /// Radius.
    pub radius: f32,
}

/// A box and a sphere, as most formats store them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// The tight box.
    pub aabb: Aabb,
    /// Sphere centred on the box centre with radius = half its diagonal, the convention
    /// real UNIGINE writers use; it always encloses the box.
    pub sphere: Sphere,
}

impl Bounds {
    /// Bounds of a point set, or `None` when it is empty. NaN coordinates are skipped.
    ///
    /// ```
    /// use meshfmt_core::{glam::Vec3, Bounds};
    /// let b = Bounds::from_points([Vec3::ZERO, Vec3::ONE]).ok_or("no points")?;
    /// assert_eq!(b.aabb.max, Vec3::ONE);
    /// assert_eq!(b.sphere.center, Vec3::splat(0.5));
    /// assert!((b.sphere.radius - 0.75f32.sqrt()).abs() < 1e-6);
    /// # Ok::<(), &str>(())
    /// ```
    pub fn from_points(points: impl IntoIterator<Item = Vec3>) -> Option<Bounds> {
        let mut min = Vec3::splat(f32::INFINITY);
        let mut max = Vec3::splat(f32::NEG_INFINITY);
        let mut any = false;
        for p in points {
            if p.is_nan() {
                continue;
            }
            min = min.min(p);
            max = max.max(p);
            any = true;
        }
        if !any {
            return None;
        }
        let aabb = Aabb { min, max };
        let center = aabb.center();
        Some(Bounds {
            aabb,
            sphere: Sphere {
                center,
                radius: (max - center).length(),
            },
        })
    }
}
