//! One memory allowance shared by every step of one operation.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::limits::Limits;

/// The memory one top-level operation may allocate: a decode, a conversion to or from
/// meshfmt-core, a write, an import, or all of them together (the `meshfmt` tool runs a
/// whole conversion under one).
///
/// Every allocation whose size comes from the input (decoded arrays, inflated or
/// decompressed payloads, resampled frames, generated geometry, instanced meshes,
/// output buffers) is *charged* before it is made; a charge that would take the total
/// past [`Limits::max_alloc_bytes`] fails with [`BudgetExceeded`] and nothing is
/// allocated. Charges stay until the operation ends, so the total bounds the peak;
/// working memory a step frees before the operation ends (a build's scratch arrays)
/// may be handed back with [`Budget::release`] once it is dropped.
///
/// A `Budget` is a shared handle: clones charge the same total, so the steps of one
/// operation (sub-readers, blocks, chunks, conversions) all draw from it. Make a new one
/// per operation.
///
/// ```
/// use parsing_primitives::{Budget, Limits};
/// let budget = Budget::new(Limits { max_alloc_bytes: 100, ..Limits::DEFAULT });
/// let step = budget.clone();
/// step.charge("positions", 60)?;
/// assert_eq!(budget.used(), 60);
/// let err = budget.charge("normals", 60).unwrap_err();
/// assert_eq!(err.to_string(),
///     "memory budget exceeded by normals: 60 more bytes would make 120 of the 100 allowed");
/// assert_eq!(budget.used(), 60); // a refused charge takes nothing
/// # Ok::<(), parsing_primitives::BudgetExceeded>(())
/// ```
#[derive(Debug, Clone)]
pub struct Budget(Arc<Shared>);

#[derive(Debug)]
struct Shared {
    limits: Limits,
    used: AtomicU64,
}

/// A charge against a [`Budget`] was refused. Display is one line naming what was being
/// built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "memory budget exceeded by {what}: {requested} more bytes would make {} of the {limit} allowed",
    used.saturating_add(*requested)
)]
pub struct BudgetExceeded {
    /// What was being built (`"resampled frames"`, `"inflated payload"`, ...).
    pub what: &'static str,
    /// Bytes the refused charge asked for.
    pub requested: u64,
    /// Bytes already charged.
    pub used: u64,
    /// [`Limits::max_alloc_bytes`].
    pub limit: u64,
}

impl Budget {
    /// A fresh budget of `limits.max_alloc_bytes`.
    pub fn new(limits: Limits) -> Self {
        Budget(Arc::new(Shared {
            limits,
            used: AtomicU64::new(0),
        }))
    }

    /// The budget an operation draws on: the caller's `shared` one when given (a step of
    /// a larger operation), else a fresh one of `limits`. Options structs carry both
    /// (`limits` and `budget: Option<Budget>`) and call this.
    ///
    /// ```
    /// # use parsing_primitives::{Budget, Limits};
    /// let outer = Budget::default();
    /// Budget::shared_or_new(Some(&outer), Limits::UNLIMITED).charge("x", 5)?;
    /// Budget::shared_or_new(None, Limits::DEFAULT).charge("y", 7)?;
    /// assert_eq!(outer.used(), 5);
    /// # Ok::<(), parsing_primitives::BudgetExceeded>(())
    /// ```
    pub fn shared_or_new(shared: Option<&Budget>, limits: Limits) -> Budget {
        shared.cloned().unwrap_or_else(|| Budget::new(limits))
    }

    /// The limits this budget enforces.
    pub fn limits(&self) -> Limits {
        self.0.limits
    }

    /// Bytes charged so far.
    pub fn used(&self) -> u64 {
        self.0.used.load(Ordering::Relaxed)
    }

    /// Bytes that can still be charged.
    pub fn remaining(&self) -> u64 {
        self.0.limits.max_alloc_bytes.saturating_sub(self.used())
    }

    /// `bytes`, an encoded output, once their length is charged (as `encoded output`):
    /// what a writer that encodes into a `Vec` returns under a budget.
    ///
    /// ```
    /// # use parsing_primitives::{Budget, Limits};
    /// let budget = Budget::new(Limits { max_alloc_bytes: 3, ..Limits::DEFAULT });
    /// assert_eq!(budget.charged_output(vec![1, 2, 3])?, [1, 2, 3]);
    /// let e = budget.charged_output(vec![4]).err().map(|e| e.what);
    /// assert_eq!(e, Some("encoded output"));
    /// # Ok::<(), parsing_primitives::BudgetExceeded>(())
    /// ```
    pub fn charged_output(&self, bytes: Vec<u8>) -> Result<Vec<u8>, BudgetExceeded> {
        self.charge("encoded output", bytes.len() as u64)?;
        Ok(bytes)
    }

    /// Charges `bytes` for `what`, or fails (charging nothing) when the total would pass
    /// the limit.
    pub fn charge(&self, what: &'static str, bytes: u64) -> Result<(), BudgetExceeded> {
        // Nothing to charge: no atomic operation (charges never take `used` past the
        // limit, so a charge of 0 always succeeds).
        if bytes == 0 {
            return Ok(());
        }
        let limit = self.0.limits.max_alloc_bytes;
        let mut used = self.used();
        loop {
            let total = used.saturating_add(bytes);
            if total > limit {
                return Err(BudgetExceeded {
                    what,
                    requested: bytes,
                    used,
                    limit,
                });
            }
            match self.0.used.compare_exchange_weak(
                used,
                total,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Ok(()),
                Err(now) => used = now,
            }
        }
    }

    /// Hands back `bytes` of an earlier charge whose memory has been freed (working
    /// memory of a step, not what the operation keeps), so later steps may use it. Never
    /// goes below zero.
    ///
    /// ```
    /// # use parsing_primitives::{Budget, Limits};
    /// let budget = Budget::new(Limits { max_alloc_bytes: 100, ..Limits::DEFAULT });
    /// budget.charge("scratch", 80)?;
    /// // ... build with the scratch arrays, keep 10 bytes of result, drop the rest ...
    /// budget.release(70);
    /// assert_eq!(budget.used(), 10);
    /// budget.charge("next step", 90)?;
    /// budget.release(1000);
    /// assert_eq!(budget.used(), 0);
    /// # Ok::<(), parsing_primitives::BudgetExceeded>(())
    /// ```
    pub fn release(&self, bytes: u64) {
        if bytes == 0 {
            return;
        }
        let _ = self
            .0
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                Some(used.saturating_sub(bytes))
            });
    }

    /// Charges `count` values of `T` (`count * size_of::<T>()` bytes, saturating).
    ///
    /// ```
    /// # use parsing_primitives::{Budget, Limits};
    /// let budget = Budget::new(Limits::DEFAULT);
    /// budget.charge_items::<[f32; 3]>("positions", 10)?;
    /// assert_eq!(budget.used(), 120);
    /// assert!(budget.charge_items::<u64>("indices", usize::MAX).is_err());
    /// # Ok::<(), parsing_primitives::BudgetExceeded>(())
    /// ```
    pub fn charge_items<T>(&self, what: &'static str, count: usize) -> Result<(), BudgetExceeded> {
        self.charge(
            what,
            (count as u64).saturating_mul(std::mem::size_of::<T>() as u64),
        )
    }

    /// [`charge_items`](Self::charge_items) plus `extra` bytes in the same charge (the
    /// heap text or arrays the items own, such as bone names).
    ///
    /// ```
    /// use parsing_primitives::{Budget, Limits};
    /// let b = Budget::new(Limits::DEFAULT);
    /// b.charge_items_with::<u32>("bones", 3, 10)?;
    /// assert_eq!(b.used(), 22);
    /// # Ok::<(), parsing_primitives::BudgetExceeded>(())
    /// ```
    pub fn charge_items_with<T>(
        &self,
        what: &'static str,
        count: usize,
        extra: u64,
    ) -> Result<(), BudgetExceeded> {
        let items = (count as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        self.charge(what, items.saturating_add(extra))
    }
}

impl Default for Budget {
    /// A fresh budget of [`Limits::DEFAULT`].
    fn default() -> Self {
        Budget::new(Limits::DEFAULT)
    }
}

impl From<Limits> for Budget {
    fn from(limits: Limits) -> Self {
        Budget::new(limits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_credit_refuses_only_what_direct_charges_would() {
        let kib = 1u64 << 10;
        let budget = Budget::new(Limits {
            max_alloc_bytes: 100 * kib,
            ..Limits::DEFAULT
        });
        let mut c = Credit::new(&budget, "t");
        // 1 KiB takes a 64 KiB block: 63 KiB left in hand.
        assert!(c.charge(kib).is_ok());
        assert_eq!(budget.used(), 64 * kib);
        // 70 KiB more: 71 KiB in all fits the 100 KiB limit, so the credit must take
        // it (the 63 KiB in hand and 7 KiB more), though a new 64 KiB block would not.
        assert!(c.charge(70 * kib).is_ok());
        assert_eq!(budget.used(), 71 * kib);
        // 30 KiB more would pass the limit, as a direct charge would.
        assert!(c.charge(30 * kib).is_err());
        drop(c);
        assert_eq!(budget.used(), 71 * kib);
    }

    #[test]
    fn clones_share_one_total_and_new_budgets_do_not() -> Result<(), BudgetExceeded> {
        let limits = Limits {
            max_alloc_bytes: 10,
            ..Limits::DEFAULT
        };
        let a = Budget::new(limits);
        let b = a.clone();
        a.charge("x", 6)?;
        assert_eq!(b.remaining(), 4);
        assert!(b.charge("y", 5).is_err());
        b.charge("y", 4)?;
        assert_eq!(a.used(), 10);
        assert_eq!(Budget::new(limits).used(), 0);
        Ok(())
    }

    #[test]
    fn saturating_charges_fail_instead_of_wrapping() -> Result<(), BudgetExceeded> {
        let b = Budget::new(Limits {
            max_alloc_bytes: u64::MAX - 1,
            ..Limits::UNLIMITED
        });
        b.charge("x", u64::MAX - 2)?;
        let e = b.charge("y", 5).err();
        assert_eq!(e.map(|e| (e.used, e.requested)), Some((u64::MAX - 2, 5)));
        assert_eq!(b.used(), u64::MAX - 2);
        Ok(())
    }

    #[test]
    fn threads_share_the_total() {
        let b = Budget::new(Limits {
            max_alloc_bytes: 1000,
            ..Limits::DEFAULT
        });
        let ok: usize = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4)
                .map(|_| {
                    let b = b.clone();
                    s.spawn(move || (0..500).filter(|_| b.charge("x", 1).is_ok()).count())
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap_or(0)).sum()
        });
        assert_eq!(ok, 1000);
        assert_eq!(b.used(), 1000);
    }
}

/// Charges to a [`Budget`] in blocks, for loops that charge a few bytes per item: the
/// shared total moves once per [`Credit::BLOCK`] bytes rather than once per item, and what
/// is left of the last block is handed back when the credit is dropped. A charge the
/// block does not fit is tried exactly, so a credit refuses only what a direct charge
/// would refuse.
///
/// ```
/// # use parsing_primitives::{Budget, Credit, Limits};
/// let budget = Budget::new(Limits { max_alloc_bytes: 1 << 20, ..Limits::DEFAULT });
/// let mut vertices = Credit::new(&budget, "vertices");
/// for _ in 0..1000 {
///     vertices.charge(48)?;
/// }
/// assert!(budget.used() >= 48_000);
/// drop(vertices);
/// assert_eq!(budget.used(), 48_000);
/// // Near the limit a credit takes what fits, as a direct charge would.
/// let small = Budget::new(Limits { max_alloc_bytes: 100 << 10, ..Limits::DEFAULT });
/// small.charge("earlier", 90 << 10)?;
/// let mut c = Credit::new(&small, "vertices");
/// c.charge(5 << 10)?;
/// assert!(c.charge(6 << 10).is_err());
/// drop(c);
/// assert_eq!(small.used(), 95 << 10);
/// # Ok::<(), parsing_primitives::BudgetExceeded>(())
/// ```
#[derive(Debug)]
pub struct Credit<'b> {
    budget: &'b Budget,
    what: &'static str,
    left: u64,
}

impl<'b> Credit<'b> {
    /// Bytes taken from the budget at a time.
    pub const BLOCK: u64 = 64 << 10;

    /// A credit on `budget` for charges named `what`.
    pub fn new(budget: &'b Budget, what: &'static str) -> Self {
        Credit {
            budget,
            what,
            left: 0,
        }
    }

    /// Charges `bytes`, from the block in hand or a new one.
    #[inline]
    pub fn charge(&mut self, bytes: u64) -> Result<(), BudgetExceeded> {
        self.charge_for(self.what, bytes)
    }

    /// [`charge`](Self::charge), naming what this charge is for (a reader that builds
    /// several things from one credit); a new block taken from the budget, and an
    /// error, carry that name.
    ///
    /// ```
    /// # use parsing_primitives::{Budget, Credit, Limits};
    /// let budget = Budget::new(Limits { max_alloc_bytes: 1000, ..Limits::DEFAULT });
    /// let mut c = Credit::new(&budget, "text");
    /// c.charge_for("vertices", 600)?;
    /// assert_eq!(c.charge_for("faces", 600).map_err(|e| e.what), Err("faces"));
    /// # Ok::<(), parsing_primitives::BudgetExceeded>(())
    /// ```
    #[inline]
    pub fn charge_for(&mut self, what: &'static str, bytes: u64) -> Result<(), BudgetExceeded> {
        if let Some(left) = self.left.checked_sub(bytes) {
            self.left = left;
            return Ok(());
        }
        // What the block in hand lacks, taken with a new block (or exactly, near the
        // limit): the credit then refuses only what a direct charge would.
        let need = bytes - self.left;
        let block = need.max(Self::BLOCK);
        match self.budget.charge(what, block) {
            Ok(()) => self.left = block - need,
            Err(_) => {
                self.budget.charge(what, need)?;
                self.left = 0;
            }
        }
        Ok(())
    }

    /// [`charge`](Self::charge) for `count` values of `T`.
    pub fn charge_items<T>(&mut self, count: usize) -> Result<(), BudgetExceeded> {
        self.charge((count as u64).saturating_mul(std::mem::size_of::<T>() as u64))
    }
}

impl Drop for Credit<'_> {
    fn drop(&mut self) {
        self.budget.release(self.left);
    }
}
