//! The edges + spatial tree block of ms14 surfaces (notes/unigine-current.md 4.4): read
//! and checked from real files, and built for new ones, so any mesh can be written as
//! ms14.
//!
//! ```text
//! ci num_edges (= triangles); u8 edge_flags[...]
//! ci num_node_indices (= triangles); ci node_index[...]   (3 x triangle number)
//! ci num_nodes
//! per node: u8 axis; ci left; ci right; ci start; ci end
//! per node: f32[3] min; f32[3] max
//! per node: f32 split
//! ```
//! The tree is binary and in pre-order (an inner node's left child is the next node);
//! leaves have `left = right = -1`, axis 0, split 0 and a `[start, end)` range of
//! `node_index`, contiguous in pre-order; inner nodes have `start = end = 0` and split
//! at the midpoint of their box along `axis`. Boxes are tight around the node's
//! triangles. Edge flag bit `k` marks the edge opposite corner `k` as a real edge:
//! set on boundary edges and between triangles that are not coplanar (the notes infer
//! this rule from the samples; it drives edge display, not geometry).

use std::collections::HashMap;

use parsing_primitives::compact::{COMPACT_MAX_LEN, compact_from_word, compact_len, compact_word};
use parsing_primitives::{Reader, Writer};

use crate::FORMAT_NAME;
use crate::ReadOptions;
use crate::error::Result;
use crate::input::Input;

/// One node of a [`SpatialTree`], as stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeNode {
    /// Split axis (0 x, 1 y, 2 z); 0 in leaves.
    pub axis: u8,
    /// Left child (the next node in pre-order), or -1 in a leaf.
    pub left: i32,
    /// Right child, or -1 in a leaf.
    pub right: i32,
    /// First entry of [`SpatialTree::node_indices`] in a leaf; 0 in inner nodes.
    pub start: i32,
    /// One past the last entry in a leaf; 0 in inner nodes.
    pub end: i32,
    /// Box minimum.
    pub min: [f32; 3],
    /// Box maximum.
    pub max: [f32; 3],
    /// Split plane along `axis`; 0 in leaves.
    pub split: f32,
}

impl TreeNode {
    /// True for a leaf (`left = right = -1`).
    pub fn is_leaf(&self) -> bool {
        self.left < 0 && self.right < 0
    }
}

/// A surface's edges + spatial tree block, decoded.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SpatialTree {
    /// One byte per triangle; bit `k` marks the edge opposite corner `k`.
    pub edge_flags: Vec<u8>,
    /// Offsets into the index arrays (3 x triangle number), in leaf order.
    pub node_indices: Vec<i32>,
    /// The nodes in pre-order; node 0 is the root.
    pub nodes: Vec<TreeNode>,
}

/// A node's axis and four links, when the bytes at hand hold them with 8 to spare (most
/// nodes take 5 to 13 bytes) and no link is longer than a compact int can be or past
/// `i32`: each link from one 8-byte load ([`compact_word`]). One-byte
/// -1 and 0 pairs (a leaf's children, an inner node's range: every engine node has one)
/// are taken as they are. (Reading the four links' ends off one 16-byte load was a
/// third slower: 128-bit shifts cost more than the loads they save.)
#[inline]
fn node_links(b: &[u8]) -> Option<(u8, [i32; 4], usize)> {
    // One compact int at `at` from an 8-byte load (no tail branch: nodes without 8 bytes
    // past a link go link by link; `compact_prefix`, with its tail branch, made the tree
    // parse 14% slower).
    #[inline(always)]
    fn link(b: &[u8], at: usize) -> Option<(i32, usize)> {
        let w = u64::from_le_bytes(*b.get(at..)?.first_chunk::<8>()?);
        let (v, used) = compact_word(w)?;
        Some((i32::try_from(v).ok()?, at + used))
    }
    let axis = *b.first()?;
    let pair = |at: usize| b.get(at..at + 2).map(|p| u16::from_le_bytes([p[0], p[1]]));
    let mut links = [0i32; 4];
    let mut at = 1;
    if pair(1)? == 0x4141 {
        links[0] = -1;
        links[1] = -1;
        at = 3;
    } else {
        (links[0], at) = link(b, at)?;
        (links[1], at) = link(b, at)?;
        if pair(at)? == 0 {
            return Some((axis, links, at + 2));
        }
    }
    (links[2], at) = link(b, at)?;
    (links[3], at) = link(b, at)?;
    Some((axis, links, at))
}

/// Most triangles a surface with a spatial tree can have: node indices (3 x a triangle
/// number, so up to 3 x (triangles - 1)) are 32-bit ints in the engine.
pub const MAX_TRIANGLES: usize = (i32::MAX / 3) as usize + 1;

/// Refuses a surface (named `name`) of more than [`MAX_TRIANGLES`] triangles before a
/// tree is built or written for it.
pub(crate) fn triangles_fit(name: &impl std::fmt::Display, triangles: usize) -> Result<()> {
    if triangles > MAX_TRIANGLES {
        return Err(crate::error::invalid(format!(
            "surface '{name}': {triangles} triangles, more than a spatial tree can index ({MAX_TRIANGLES})"
        )));
    }
    Ok(())
}

/// Smallest encoded node: axis, four 1-byte compact ints, 28 bytes of floats.
const MIN_NODE_SIZE: usize = 1 + 4 + 28;

/// Below this depth [`SpatialTree::build`] splits at the box midpoint, like the
/// engine; deeper nodes split at the median. Midpoint splits can peel one triangle off
/// per level (points at 1, 2, 4, 8, ...), which makes the depth, and the building time,
/// grow with the triangle count; the median split halves the count, so a tree is at
/// most this deep plus log2(triangles). Engine trees of real meshes are far shallower.
pub const MAX_MIDPOINT_DEPTH: usize = 64;

impl SpatialTree {
    /// Decodes a block's content. Counts are checked against the bytes left before
    /// anything is allocated, and the block must be consumed exactly; the structure is
    /// checked by [`SpatialTree::problems`].
    pub(crate) fn decode(r: &mut Reader<'_>) -> parsing_primitives::Result<SpatialTree> {
        SpatialTree::read_from(r)
    }

    /// `SpatialTree::decode` from any [`Input`] (a block streamed as it decodes).
    pub(crate) fn read_from(r: &mut impl Input) -> parsing_primitives::Result<SpatialTree> {
        let n = r.field("num_edges", |r| r.compact_count(1))?;
        let edge_flags = r.field("edge_flags", |r| {
            // The count's check made sure the bytes are there.
            r.charge_for("edge flags", n as u64)?;
            let mut flags = Vec::with_capacity(n);
            r.pieces(n, 1, |p| flags.extend_from_slice(p))?;
            Ok(flags)
        })?;
        let n = r.field("num_node_indices", |r| r.compact_count(1))?;
        let node_indices = r.field("node_indices", |r| {
            r.array_runs(n as u64, 1, engine_ints, engine_int)
        })?;
        let n = r.field("num_nodes", |r| r.compact_count(MIN_NODE_SIZE))?;
        // Nodes built from their links; boxes and splits, stored after all links, are
        // filled in place below.
        let node = |axis, [left, right, start, end]: [i32; 4]| TreeNode {
            axis,
            left,
            right,
            start,
            end,
            min: [0.0; 3],
            max: [0.0; 3],
            split: 0.0,
        };
        let mut nodes = r.field("nodes", |r| {
            r.array_bulk(
                n as u64,
                5,
                // A node the word-at-a-time decoder does not take (without 8 bytes past
                // a link, or a link it refuses) is read link by link, which also names
                // any error.
                |b| node_links(b).map(|(axis, links, used)| (node(axis, links), used)),
                |r| {
                    let axis = r.le::<u8>()?;
                    let [left, right, start, end] = [(); 4].map(|()| engine_int(r));
                    Ok(node(axis, [left?, right?, start?, end?]))
                },
            )
        })?;
        let f = |b: &[u8], i: usize| {
            let mut w = [0u8; 4];
            w.copy_from_slice(&b[4 * i..4 * i + 4]);
            f32::from_le_bytes(w)
        };
        let mut at = nodes.iter_mut();
        r.field("boxes", |r| {
            r.pieces(n.saturating_mul(24), 24, |p| {
                for (b, t) in p.chunks_exact(24).zip(&mut at) {
                    t.min = [f(b, 0), f(b, 1), f(b, 2)];
                    t.max = [f(b, 3), f(b, 4), f(b, 5)];
                }
            })
        })?;
        let mut at = nodes.iter_mut();
        r.field("splits", |r| {
            r.pieces(n.saturating_mul(4), 4, |p| {
                for (s, t) in p.chunks_exact(4).zip(&mut at) {
                    t.split = f(s, 0);
                }
            })
        })?;
        r.finish()?;
        Ok(SpatialTree {
            edge_flags,
            node_indices,
            nodes,
        })
    }

    /// Decodes a block's content (counts checked against the bytes left before anything is
    /// allocated, the block consumed exactly) under a default budget.
    pub fn read(content: &[u8]) -> parsing_primitives::Result<SpatialTree> {
        SpatialTree::read_with(content, &ReadOptions::default())
    }

    /// Decodes a block's content (counts checked against the bytes left before anything is
    /// allocated, the block consumed exactly), charging what it allocates to the
    /// options' budget (the operation's, shared with the rest of the file).
    ///
    /// ```
    /// use unigine_mesh::spatial::SpatialTree;
    /// use unigine_mesh::{Budget, ReadOptions};
    /// use meshfmt_core::Limits;
    /// let bytes = SpatialTree::build(&[0, 1, 2], &[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], 4)
    ///     .write()?;
    /// let tight = ReadOptions { budget: Budget::new(Limits { max_alloc_bytes: 16, ..Limits::DEFAULT }) };
    /// assert!(SpatialTree::read_with(&bytes, &tight).is_err()); // even one node needs more
    /// assert!(SpatialTree::read_with(&bytes, &ReadOptions::default()).is_ok());
    /// # Ok::<(), unigine_mesh::Error>(())
    /// ```
    pub fn read_with(
        content: &[u8],
        options: &ReadOptions,
    ) -> parsing_primitives::Result<SpatialTree> {
        SpatialTree::decode(
            &mut Reader::new(FORMAT_NAME, content).with_budget(options.budget.clone()),
        )
    }

    /// Most heap bytes [`SpatialTree::build`] uses per triangle (per-triangle boxes,
    /// centroids and orders, up to two nodes, the edge table), for charging a budget
    /// before building.
    pub const BUILD_BYTES_PER_TRIANGLE: u64 = 600;

    /// Heap bytes the tree holds (its three arrays).
    pub fn heap_bytes(&self) -> u64 {
        (self.edge_flags.capacity()
            + self.node_indices.capacity() * std::mem::size_of::<i32>()
            + self.nodes.capacity() * std::mem::size_of::<TreeNode>()) as u64
    }

    /// Length of [`SpatialTree::write`]'s output, computed without writing it.
    pub fn encoded_len(&self) -> usize {
        let c = |n: usize| compact_len(i64::try_from(n).unwrap_or(i64::MAX));
        let indices: usize = self
            .node_indices
            .iter()
            .map(|&i| compact_len(i64::from(i)))
            .sum();
        let nodes: usize = self
            .nodes
            .iter()
            .map(|n| {
                1 + 28
                    + [n.left, n.right, n.start, n.end]
                        .map(|v| compact_len(i64::from(v)))
                        .iter()
                        .sum::<usize>()
            })
            .sum();
        c(self.edge_flags.len())
            + self.edge_flags.len()
            + c(self.node_indices.len())
            + indices
            + c(self.nodes.len())
            + nodes
    }

    /// The block's content: minimal compact ints, as the engine writes them.
    pub fn write(&self) -> Result<Vec<u8>> {
        // Sized first, so the buffer is not grown by doubling (and copied).
        let mut w = Writer::with_capacity(FORMAT_NAME, self.encoded_len());
        w.compact_count(self.edge_flags.len())?;
        w.bytes(&self.edge_flags);
        w.compact_count(self.node_indices.len())?;
        for &i in &self.node_indices {
            w.compact_i64(i64::from(i))?;
        }
        w.compact_count(self.nodes.len())?;
        for n in &self.nodes {
            w.u8(n.axis);
            for v in [n.left, n.right, n.start, n.end] {
                w.compact_i64(i64::from(v))?;
            }
        }
        for n in &self.nodes {
            w.le_slice(&n.min).le_slice(&n.max);
        }
        for n in &self.nodes {
            w.f32_le(n.split);
        }
        Ok(w.into_inner())
    }

    /// Checks the structure every engine file has, for a surface of `triangles`
    /// triangles: one edge flag (0..7) and one node index per triangle, node indices a
    /// permutation of `0, 3, 6, …`, a binary tree in pre-order whose leaves' ranges are
    /// contiguous and cover every node index. Returns every problem found, not just the
    /// first, each at the path `spatial_tree`.
    ///
    /// ```
    /// use unigine_mesh::spatial::SpatialTree;
    /// let pos = [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    /// let mut tree = SpatialTree::build(&[0, 1, 2], &pos, 4);
    /// assert!(tree.problems(1).is_empty());
    /// tree.edge_flags = vec![9, 0]; // two flags for one triangle, one of them out of range
    /// assert_eq!(tree.problems(1).len(), 2);
    /// ```
    pub fn problems(&self, triangles: usize) -> Vec<meshfmt_core::Problem> {
        let mut p = meshfmt_core::Problems::default();
        for message in self.check(triangles) {
            p.push("spatial_tree", message);
        }
        p.into_vec()
    }

    /// The text of each of [`SpatialTree::problems`].
    pub(crate) fn check(&self, triangles: usize) -> Vec<String> {
        let mut problems = Vec::new();
        if self.edge_flags.len() != triangles {
            problems.push(format!(
                "{} edge flags for {triangles} triangles",
                self.edge_flags.len()
            ));
        }
        if let Some(k) = self.edge_flags.iter().position(|&f| f > 7) {
            problems.push(format!(
                "edge_flags[{k}] = {} is above 7",
                self.edge_flags[k]
            ));
        }
        if self.node_indices.len() != triangles {
            problems.push(format!(
                "{} node indices for {triangles} triangles",
                self.node_indices.len()
            ));
        }
        let mut seen = vec![false; triangles];
        for (k, &i) in self.node_indices.iter().enumerate() {
            let t = usize::try_from(i / 3)
                .ok()
                .filter(|&t| i % 3 == 0 && t < triangles);
            match t.and_then(|t| seen.get_mut(t)) {
                Some(s) if !*s => *s = true,
                Some(_) => problems.push(format!("node_indices[{k}] = {i} appears twice")),
                None => problems.push(format!("node_indices[{k}] = {i} is not 3 x a triangle")),
            }
        }
        if self.nodes.is_empty() {
            if triangles > 0 {
                problems.push("no nodes for a surface with triangles".into());
            }
            return problems;
        }
        // Walk the tree in pre-order from the root: every node is visited once, in
        // storage order, and leaves come with contiguous ranges.
        let mut next = 0usize;
        let mut covered = 0i32;
        let mut stack = vec![0i32];
        while let Some(id) = stack.pop() {
            let Some(n) = usize::try_from(id).ok().and_then(|i| self.nodes.get(i)) else {
                problems.push(format!("child {id} is not a node"));
                break;
            };
            if id as usize != next {
                problems.push(format!(
                    "node {id} is not stored in pre-order (expected {next})"
                ));
                break;
            }
            next += 1;
            if n.axis > 2 {
                problems.push(format!("nodes[{id}].axis = {}", n.axis));
            }
            if n.is_leaf() {
                if n.start != covered || n.end < n.start {
                    problems.push(format!(
                        "nodes[{id}] covers [{}, {}) but the leaves so far end at {covered}",
                        n.start, n.end
                    ));
                    break;
                }
                covered = n.end;
            } else if i64::from(n.left) != i64::from(id) + 1 || n.right <= n.left {
                problems.push(format!(
                    "nodes[{id}] children {} and {} are not in pre-order",
                    n.left, n.right
                ));
                break;
            } else {
                stack.push(n.right);
                stack.push(n.left);
            }
        }
        if problems.is_empty() {
            if next != self.nodes.len() {
                problems.push(format!(
                    "{} of {} nodes are reachable",
                    next,
                    self.nodes.len()
                ));
            }
            if usize::try_from(covered).ok() != Some(self.node_indices.len()) {
                problems.push(format!(
                    "leaves cover {covered} of {} node indices",
                    self.node_indices.len()
                ));
            }
        }
        problems
    }

    /// Builds the tree the engine would: recursive midpoint splits of each node's box
    /// along its longest axis (triangles partitioned by centroid, the median when one
    /// side would be empty), leaves of at most `leaf_size` triangles, tight boxes, and
    /// edge flags on boundary and crease edges. Past [`MAX_TRIANGLES`] triangles the
    /// node indices do not fit the engine's ints: they saturate, and
    /// [`problems`](Self::problems) reports the tree.
    pub fn build(cindices: &[u32], positions: &[[f32; 3]], leaf_size: usize) -> SpatialTree {
        let tri_count = cindices.len() / 3;
        let corner = |t: usize, k: usize| corner(cindices, positions, t, k);
        // Per-triangle boxes and centroid sums once, so each level is a linear pass.
        let mut boxes = Vec::with_capacity(tri_count);
        let mut centroids = Vec::with_capacity(tri_count);
        for t in 0..tri_count {
            let [a, b, c] = [0, 1, 2].map(|k| corner(t, k));
            let min = [0, 1, 2].map(|i| a[i].min(b[i]).min(c[i]));
            let max = [0, 1, 2].map(|i| a[i].max(b[i]).max(c[i]));
            boxes.push((min, max));
            centroids.push([0, 1, 2].map(|i| a[i] + b[i] + c[i]));
        }
        let mut b = Builder {
            boxes,
            centroids,
            leaf_size: leaf_size.max(1),
            nodes: Vec::new(),
            order: Vec::with_capacity(tri_count),
            scratch: Vec::new(),
        };
        // The edge flags do not depend on the tree: on a second thread for big meshes.
        let (b, edge_flags) = crate::threads::beside(
            tri_count >= crate::threads::THREADED_TRIANGLES,
            move || {
                let mut tris: Vec<u32> = (0..tri_count as u32).collect();
                if tri_count > 0 {
                    b.node(&mut tris, 0);
                }
                b
            },
            || edge_flags(cindices, positions, tri_count),
        );
        // The nodes grew one at a time: give back what doubling left spare (up to half,
        // and charged to budgets by `heap_bytes`).
        let mut nodes = b.nodes;
        nodes.shrink_to_fit();
        SpatialTree {
            edge_flags,
            node_indices: b
                .order
                .into_iter()
                .map(|t| engine_int_of(3 * t as usize))
                .collect(),
            nodes,
        }
    }
}

struct Builder {
    boxes: Vec<([f32; 3], [f32; 3])>,
    /// Sum of the three corners (3 x the centroid), per triangle.
    centroids: Vec<[f32; 3]>,
    leaf_size: usize,
    nodes: Vec<TreeNode>,
    order: Vec<u32>,
    scratch: Vec<u32>,
}

impl Builder {
    /// Builds the pre-order subtree over `tris` (triangle numbers), appending the
    /// leaves' triangles to `order`; returns the subtree's root.
    fn node(&mut self, tris: &mut [u32], depth: usize) -> usize {
        let mut min = [f32::INFINITY; 3];
        let mut max = [f32::NEG_INFINITY; 3];
        for &t in tris.iter() {
            let (lo, hi) = self.boxes[t as usize];
            for a in 0..3 {
                min[a] = min[a].min(lo[a]);
                max[a] = max[a].max(hi[a]);
            }
        }
        let id = self.nodes.len();
        self.nodes.push(TreeNode {
            axis: 0,
            left: -1,
            right: -1,
            start: 0,
            end: 0,
            min,
            max,
            split: 0.0,
        });
        if tris.len() <= self.leaf_size {
            self.nodes[id].start = engine_int_of(self.order.len());
            self.order.extend_from_slice(tris);
            self.nodes[id].end = engine_int_of(self.order.len());
            return id;
        }
        let size = [0, 1, 2].map(|a| max[a] - min[a]);
        let axis = (0..3)
            .rev()
            .max_by(|&a, &b| size[a].total_cmp(&size[b]))
            .unwrap_or(0);
        let split = (min[axis] + max[axis]) * 0.5;
        let centroids = &self.centroids;
        let key = |t: u32| centroids[t as usize][axis];
        // Stable partition at the midpoint (keeps the surface's triangle order within a
        // side); the median when one side would be empty, so depth stays logarithmic on
        // degenerate input (all centroids equal), and past MAX_MIDPOINT_DEPTH, so
        // triangles peeled off one per level cannot make building quadratic.
        let mut cut = 0;
        if depth < MAX_MIDPOINT_DEPTH {
            self.scratch.clear();
            for i in 0..tris.len() {
                let t = tris[i];
                if key(t) < 3.0 * split {
                    tris[cut] = t;
                    cut += 1;
                } else {
                    self.scratch.push(t);
                }
            }
            tris[cut..].copy_from_slice(&self.scratch);
        }
        if cut == 0 || cut == tris.len() {
            tris.sort_by(|&a, &b| key(a).total_cmp(&key(b)));
            cut = tris.len() / 2;
        }
        let (left, right) = tris.split_at_mut(cut);
        self.node(left, depth + 1);
        let r = self.node(right, depth + 1);
        let n = &mut self.nodes[id];
        n.axis = axis as u8;
        n.left = engine_int_of(id + 1);
        n.right = engine_int_of(r);
        n.split = split;
        id
    }
}

/// Compact ints from the start of `bytes` that fit the engine's `int`, up to `want`,
/// appended to `out`, eight bytes at a time: where each one ends is read off the
/// "more" flags of a whole word, so decoding one does not wait for the previous one's
/// length. Takes only values that end within a whole word of `bytes` (the last few
/// bytes are left to [`engine_int`]) and stops at a value it cannot take (longer than a
/// compact int, or past `i32`: left to [`engine_int`] for its error); returns the bytes
/// used.
fn engine_ints(bytes: &[u8], out: &mut Vec<i32>, want: usize) -> usize {
    let target = out.len().saturating_add(want);
    let mut pos = 0;
    while out.len() < target {
        let Some(word) = bytes.get(pos..).and_then(|b| b.first_chunk::<8>()) else {
            break;
        };
        let w = u64::from_le_bytes(*word);
        let mut ends = !w & 0x8080_8080_8080_8080;
        let mut start = 0;
        while ends != 0 && out.len() < target {
            let end = ends.trailing_zeros() as usize / 8 + 1;
            ends &= ends - 1;
            let v = (end - start <= COMPACT_MAX_LEN)
                .then(|| compact_from_word(w >> (8 * start), end - start))
                .and_then(|v| i32::try_from(v).ok());
            let Some(v) = v else {
                return pos + start;
            };
            out.push(v);
            start = end;
        }
        if start == 0 {
            break;
        }
        pos += start;
    }
    pos
}

/// One compact int that must fit the engine's `int` (every tree number does: the
/// engine reads them into 32-bit ints); a larger one is an error at its offset.
fn engine_int(r: &mut impl Input) -> parsing_primitives::Result<i32> {
    let at = r.offset();
    let v = r.compact_int()?;
    i32::try_from(v).map_err(|_| r.invalid_at(at, format!("{v} does not fit a 32-bit int")))
}

/// A built tree's number as stored. The crate builds trees only for surfaces of at most
/// [`MAX_TRIANGLES`] triangles ([`triangles_fit`]), where every number fits; past that
/// ([`SpatialTree::build`] called directly) they saturate, which
/// [`SpatialTree::problems`] reports.
fn engine_int_of(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Corner `k` of triangle `t`; an index past the positions reads as the origin.
fn corner(cindices: &[u32], positions: &[[f32; 3]], t: usize, k: usize) -> [f32; 3] {
    cindices
        .get(3 * t + k)
        .and_then(|&i| positions.get(i as usize))
        .copied()
        .unwrap_or([0.0; 3])
}

/// Edge flags, one byte per triangle: bit `k` for the edge opposite corner `k`, set
/// unless exactly one other triangle shares the edge and lies in the same plane.
///
/// Edges are keyed by their end positions (bit patterns, unordered), since split
/// vertices share positions but not indices: positions get ids once, then the corners
/// are grouped by their edge's smaller end (a counting sort) and matched within each
/// small group, in linear time and sequential memory rather than one hash-table probe
/// per corner.
///
/// Corner numbers and group starts are 32-bit (a million triangles' list of corners is
/// then 12 MB, not 24): a surface of more than `u32::MAX` corners (beyond what a tree can
/// index, see [`MAX_TRIANGLES`]) gets every edge flagged.
fn edge_flags(cindices: &[u32], positions: &[[f32; 3]], tri_count: usize) -> Vec<u8> {
    let corners = 3 * tri_count;
    if u32::try_from(corners).is_err() {
        return vec![7; tri_count];
    }
    let mut ids: HashMap<[u32; 3], u32> = HashMap::with_capacity(positions.len());
    let next_id = |p: [f32; 3], ids: &mut HashMap<[u32; 3], u32>| {
        let n = ids.len() as u32;
        *ids.entry(p.map(f32::to_bits)).or_insert(n)
    };
    let pos_id: Vec<u32> = positions.iter().map(|p| next_id(*p, &mut ids)).collect();
    // Indices past the positions read as the origin, as `corner` does.
    let origin = next_id([0.0; 3], &mut ids);
    let npos = ids.len();
    drop(ids);
    let pid = |c: usize| {
        cindices
            .get(c)
            .and_then(|&i| pos_id.get(i as usize))
            .copied()
            .unwrap_or(origin)
    };
    // The edge opposite corner c, as (smaller, larger) position id.
    let ends = |c: usize| {
        let (t, k) = (c / 3, c % 3);
        let a = pid(3 * t + (k + 1) % 3);
        let b = pid(3 * t + (k + 2) % 3);
        if a <= b { (a, b) } else { (b, a) }
    };
    // Counts, then starts: below `corners`, which fits a u32 (checked above).
    let mut start = vec![0u32; npos + 1];
    for c in 0..corners {
        if let Some(n) = start.get_mut(ends(c).0 as usize + 1) {
            *n += 1;
        }
    }
    for i in 1..start.len() {
        start[i] += start[i - 1];
    }
    let mut fill = start.clone();
    let mut by_end = vec![0u32; corners];
    for c in 0..corners {
        let lo = ends(c).0 as usize;
        if let Some(slot) = fill.get_mut(lo).and_then(|f| {
            let at = *f as usize;
            *f += 1;
            by_end.get_mut(at)
        }) {
            *slot = c as u32;
        }
    }
    drop(fill);
    let normal = |t: usize| {
        let [a, b, c] = [0, 1, 2].map(|k| corner(cindices, positions, t, k));
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let n = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        if l > 0.0 { n.map(|x| x / l) } else { n }
    };
    let mut flags = vec![0u8; tri_count];
    let mut mark = |c: usize| {
        if let Some(f) = flags.get_mut(c / 3) {
            *f |= 1 << (c % 3);
        }
    };
    let mut group: Vec<(u32, usize)> = Vec::new();
    for w in start.windows(2) {
        group.clear();
        let members = by_end.get(w[0] as usize..w[1] as usize).unwrap_or_default();
        group.extend(members.iter().map(|&c| (ends(c as usize).1, c as usize)));
        group.sort_unstable();
        // A run of one larger end is one edge; its corners in triangle order.
        for run in group.chunk_by(|a, b| a.0 == b.0) {
            match run {
                [(_, a)] => mark(*a),
                [(_, a), (_, b)] => {
                    let (n1, n2) = (normal(a / 3), normal(b / 3));
                    if n1[0] * n2[0] + n1[1] * n2[1] + n1[2] * n2[2] < 1.0 - 1e-6 {
                        mark(*a);
                        mark(*b);
                    }
                }
                // Edges of three or more triangles are real edges for all of them.
                _ => run.iter().for_each(|(_, c)| mark(*c)),
            }
        }
    }
    flags
}

#[cfg(test)]
mod edge_tests {
    use std::collections::HashMap;

    /// The rule written the direct way: one hash entry per edge, keyed by the end
    /// positions' bits, counting the corners facing it.
    fn by_hash(cind: &[u32], pos: &[[f32; 3]]) -> Vec<u8> {
        let tris = cind.len() / 3;
        let corner = |t: usize, k: usize| {
            cind.get(3 * t + k)
                .and_then(|&i| pos.get(i as usize))
                .copied()
                .unwrap_or([0.0; 3])
        };
        let normal = |t: usize| {
            let [a, b, c] = [0, 1, 2].map(|k| corner(t, k));
            let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
            let n = [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ];
            let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            if l > 0.0 { n.map(|x| x / l) } else { n }
        };
        let key = |t: usize, k: usize| {
            let a = corner(t, (k + 1) % 3).map(f32::to_bits);
            let b = corner(t, (k + 2) % 3).map(f32::to_bits);
            if a <= b { (a, b) } else { (b, a) }
        };
        let mut edges: HashMap<_, Vec<(usize, usize)>> = HashMap::new();
        for t in 0..tris {
            for k in 0..3 {
                edges.entry(key(t, k)).or_default().push((t, k));
            }
        }
        let mut flags = vec![0u8; tris];
        for users in edges.values() {
            let flat = match users.as_slice() {
                [(t1, _), (t2, _)] => {
                    let (n1, n2) = (normal(*t1), normal(*t2));
                    n1[0] * n2[0] + n1[1] * n2[1] + n1[2] * n2[2] >= 1.0 - 1e-6
                }
                _ => false,
            };
            if !flat {
                for (t, k) in users {
                    flags[*t] |= 1 << k;
                }
            }
        }
        flags
    }

    #[test]
    fn a_big_build_computes_its_edge_flags_beside_the_tree_as_the_rule_says() {
        // 80,000 triangles, past the size from which the flags are computed on a
        // second thread; heights on a coarse pattern give flat patches and creases.
        let side = 201u32;
        let pos: Vec<[f32; 3]> = (0..side * side)
            .map(|i| {
                let (x, y) = (i % side, i / side);
                [x as f32, y as f32, ((x / 7 + y / 5) % 3) as f32]
            })
            .collect();
        let mut cind = Vec::new();
        for y in 0..side - 1 {
            for x in 0..side - 1 {
                let i = y * side + x;
                cind.extend([i, i + 1, i + side, i + 1, i + side + 1, i + side]);
            }
        }
        let tris = cind.len() / 3;
        assert!(tris >= crate::threads::THREADED_TRIANGLES);
        let tree = super::SpatialTree::build(&cind, &pos, 4);
        let want = by_hash(&cind, &pos);
        assert_eq!(tree.edge_flags, want);
        // Both kinds of edge occur: flat interior ones and flagged ones.
        assert!(want.contains(&0) && want.iter().any(|&f| f != 0));
        assert!(tree.check(tris).is_empty());
    }

    #[test]
    fn grouped_edges_give_what_a_hash_per_edge_gives() {
        let mut rng = crate::test_rng(0x2545_f491_4f6c_dd1d);
        let mut next = move |n: u64| rng() % n;
        for round in 0..200 {
            // Few distinct positions (so edges are shared, split vertices duplicate
            // positions, some triangles are degenerate or non-manifold), and some
            // indices past the positions.
            // -0.0 and 0.0 are different positions (bit patterns).
            let values = [0.0, -0.0, 1.0, 2.0, 3.5];
            let npos = 1 + next(30) as usize;
            let pos: Vec<[f32; 3]> = (0..npos)
                .map(|_| [0; 3].map(|_: u8| values[next(values.len() as u64) as usize]))
                .collect();
            let ntri = next(60) as usize;
            let cind: Vec<u32> = (0..3 * ntri)
                .map(|_| next(npos as u64 + u64::from(round % 3 == 0)) as u32)
                .collect();
            assert_eq!(
                super::edge_flags(&cind, &pos, ntri),
                by_hash(&cind, &pos),
                "round {round}: {cind:?} over {pos:?}"
            );
        }
    }
}

#[cfg(test)]
mod node_tests {
    use parsing_primitives::compact::{compact_int, encode_compact};

    use super::{engine_int, engine_ints, node_links};
    use crate::input::Input;

    /// A node decoded one link after another with the nom parser.
    fn one_by_one(b: &[u8]) -> Option<(u8, [i32; 4], usize)> {
        let (&axis, mut rest) = b.split_first()?;
        let mut links = [0i32; 4];
        for l in &mut links {
            let (after, v) = compact_int(rest).ok()?;
            *l = i32::try_from(v).ok()?;
            rest = after;
        }
        Some((axis, links, b.len() - rest.len()))
    }

    /// The word-at-a-time decoder agrees with the link-by-link one wherever it answers,
    /// and answers for every node of in-range links given 8 bytes past it: leaves and
    /// inner nodes as the engine writes them, links of every length, and random bytes.
    #[test]
    fn node_links_matches_the_link_by_link_decode() {
        let mut next = crate::test_rng(0x9e37_79b9_7f4a_7c15);
        let mut answered = 0;
        for round in 0..200_000 {
            let r = next();
            let mut b = vec![(r % 4) as u8];
            let pick = |r: u64, k: u32| -> i64 {
                match (r >> (8 * k)) % 6 {
                    0 => -1,
                    1 => 0,
                    2 => (r >> 40) as i64 % 63,
                    3 => (r >> 20) as i64 % 100_000,
                    4 => i64::from(i32::MAX) - (r >> 50) as i64,
                    _ => -((r >> 30) as i64 % 3_000_000_000),
                }
            };
            let shape = round % 3;
            let links: [i64; 4] = match shape {
                0 => [-1, -1, pick(r, 1), pick(r, 2)],
                1 => [pick(r, 1), pick(r, 2), 0, 0],
                _ => [0, 1, 2, 3].map(|k| pick(r, k)),
            };
            for v in links {
                encode_compact(v, &mut b);
            }
            let fits = links.iter().all(|&v| i32::try_from(v).is_ok());
            let need = b.len() + 8;
            // Junk after the node, sometimes cut to fewer than 16 bytes.
            let junk = next();
            b.extend_from_slice(&junk.to_le_bytes());
            b.extend_from_slice(&next().to_le_bytes());
            if round % 7 == 0 {
                b.truncate((junk % 20) as usize);
            }
            // Random bytes as they come.
            if round % 5 == 0 {
                b = (0..3).flat_map(|_| next().to_le_bytes()).collect();
            }
            let fast = node_links(&b);
            if let Some(fast) = fast {
                assert_eq!(Some(fast), one_by_one(&b), "{b:02x?}");
                answered += 1;
            } else if fits && b.len() >= need && round % 5 != 0 {
                panic!("no answer for {b:02x?}");
            }
        }
        assert!(answered > 100_000, "{answered}");
    }

    /// Node indices decoded word by word are the values encoded, in every length from
    /// one to five bytes, whatever the bytes after them; a value past `i32` stops the
    /// run and is left to the one-by-one decode, which names it.
    #[test]
    fn engine_ints_decode_what_was_encoded() {
        let mut next = crate::test_rng(0x853c_49e6_748f_ea9b);
        for round in 0..2000 {
            let n = (next() % 200) as usize;
            let values: Vec<i32> = (0..n)
                .map(|_| {
                    let r = next();
                    match r % 5 {
                        0 => (r >> 8) as i32 % 63,
                        1 => (r >> 8) as i32 % 8192,
                        2 => (r >> 8) as i32 % 1_000_000,
                        3 => (r >> 8) as i32,
                        _ => -((r >> 40) as i32),
                    }
                })
                .collect();
            let mut b = Vec::new();
            for &v in &values {
                encode_compact(i64::from(v), &mut b);
            }
            let end = b.len();
            b.extend((0..next() % 12).map(|_| next() as u8));
            let mut r = parsing_primitives::Reader::new("t", &b);
            let got = r.array_runs(n as u64, 1, engine_ints, engine_int);
            assert_eq!(got.as_ref().ok(), Some(&values), "round {round}");
            assert_eq!(r.offset(), end as u64);
        }
        // 2^31 after two small values: the run takes the two, the checked decode fails
        // at the third's offset.
        let mut b = vec![0x05, 0x06, 0x80, 0x80, 0x80, 0x80, 0x10];
        b.extend([0; 8]);
        let mut out = Vec::new();
        assert_eq!(engine_ints(&b, &mut out, 3), 2);
        assert_eq!(out, [5, 6]);
        let e = parsing_primitives::Reader::new("t", &b).array_runs(3, 1, engine_ints, engine_int);
        assert_eq!(e.err().map(|e| e.offset()), Some(2));
    }

    /// MAX_TRIANGLES is the exact bound: the last node index of a surface that size,
    /// 3 x (triangles - 1), is an `i32`, and one triangle more would not be; a surface
    /// past it is refused by name.
    #[test]
    fn max_triangles_is_the_last_count_whose_indices_fit() {
        use super::{MAX_TRIANGLES, triangles_fit};
        assert!(3 * (MAX_TRIANGLES as u64 - 1) <= i32::MAX as u64);
        assert!(3 * MAX_TRIANGLES as u64 > i32::MAX as u64);
        assert!(triangles_fit(&"s", MAX_TRIANGLES).is_ok());
        let e = triangles_fit(&"s", MAX_TRIANGLES + 1)
            .err()
            .map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.contains("surface 's': 715827884 triangles")));
    }

    /// A built tree keeps no spare room in its arrays (what budgets are charged for):
    /// a 40 x 40 grid of quads, 3,200 triangles.
    #[test]
    fn a_built_tree_holds_exactly_its_arrays() {
        let n = 40u32;
        let positions: Vec<[f32; 3]> = (0..=n)
            .flat_map(|y| (0..=n).map(move |x| [x as f32, y as f32, 0.0]))
            .collect();
        let at = |x: u32, y: u32| y * (n + 1) + x;
        let cindices: Vec<u32> = (0..n)
            .flat_map(|y| (0..n).map(move |x| (x, y)))
            .flat_map(|(x, y)| {
                [
                    at(x, y),
                    at(x + 1, y),
                    at(x + 1, y + 1),
                    at(x, y),
                    at(x + 1, y + 1),
                    at(x, y + 1),
                ]
            })
            .collect();
        let t = super::SpatialTree::build(&cindices, &positions, 4);
        assert!(t.check(3200).is_empty());
        assert!(t.nodes.len() > 1000, "{}", t.nodes.len());
        let exact = 3200 + 4 * 3200 + 48 * t.nodes.len();
        assert_eq!(t.heap_bytes(), exact as u64);
    }
}
